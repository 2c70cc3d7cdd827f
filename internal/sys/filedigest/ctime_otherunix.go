//go:build unix && !linux && !darwin

package filedigest

import "syscall"

// ctimeOf gives nothing here: a Key needs the status change time, which
// agentlock reads only on Linux and macOS, so every Sum is racy.
func ctimeOf(*syscall.Stat_t) (syscall.Timespec, bool) { return syscall.Timespec{}, false }
