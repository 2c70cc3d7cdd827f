//go:build !unix

package procs

// pidRuns cannot watch a process on this system; agentlock refuses to run
// here anyway.
func pidRuns(int) bool { return false }
