package filedigest

import "syscall"

// ctimeOf is a status's change time.
func ctimeOf(st *syscall.Stat_t) (syscall.Timespec, bool) { return st.Ctim, true }
