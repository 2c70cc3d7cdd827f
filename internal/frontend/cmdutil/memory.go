package cmdutil

import (
	"os"
	"runtime/debug"
)

// OneShotMemoryLimit is the heap size at which a process that runs with
// the garbage collector off (see OneShotMemory) collects after all.
const OneShotMemoryLimit = 256 << 20

// ServeGCPercent is the collector's target of a server (ServeMemory): a
// modest heap for a process that stays up all day.
const ServeGCPercent = 50

// OneShotMemory turns the garbage collector off. Almost every agentlock
// process is one command that lives for milliseconds, allocates a few
// megabytes at most and exits: collecting would only spend its time (a
// third of the work of `status` over 10,000 lock files). A soft memory
// limit makes a process that allocates more than expected collect anyway,
// and the commands that stay (renewal loops, waits) turn collection back
// on (KeepCollecting). Where GOGC or GOMEMLIMIT is set, these functions
// leave the runtime's settings alone: they are the user's.
func OneShotMemory() {
	if !userSetGC() {
		debug.SetGCPercent(-1)
		debug.SetMemoryLimit(OneShotMemoryLimit)
	}
}

// KeepCollecting turns the garbage collector back on, as GOGC's default
// has it, for a command that stays running (see OneShotMemory).
func KeepCollecting() { collect(100) }

// ServeMemory turns the garbage collector back on with ServeGCPercent,
// for a server (see OneShotMemory).
func ServeMemory() { collect(ServeGCPercent) }

func collect(percent int) {
	if !userSetGC() {
		debug.SetGCPercent(percent)
	}
}

// userSetGC reports whether GOGC or GOMEMLIMIT is set.
func userSetGC() bool { return os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" }
