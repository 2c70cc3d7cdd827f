//go:build !unix

package main

// alive cannot watch a process on this system; agentlock's file store
// refuses to run here anyway.
func alive(int, bool) bool { return false }
