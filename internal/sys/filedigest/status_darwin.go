package filedigest

import (
	"os"
	"syscall"
	"time"
)

// status returns a file's inode, status change time and device.
func status(info os.FileInfo) (ino uint64, ctime time.Time, dev uint64, ok bool) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, time.Time{}, 0, false
	}
	return uint64(st.Ino), time.Unix(st.Ctimespec.Unix()), uint64(st.Dev), true
}
