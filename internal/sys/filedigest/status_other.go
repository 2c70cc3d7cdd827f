//go:build !linux && !darwin

package filedigest

import (
	"os"
	"time"
)

// status gives nothing here: a Key needs the status change time, which
// agentlock reads only on Linux and macOS, so every Sum is racy.
func status(os.FileInfo) (ino uint64, ctime time.Time, dev uint64, ok bool) {
	return 0, time.Time{}, 0, false
}
