package core

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// Magic numbers of network file systems on which flock(2) gives weak or no
// exclusion between machines (statfs(2) f_type).
var networkFS = map[int64]string{
	0x6969:     "NFS",
	0x517B:     "SMB",
	0xFF534D42: "CIFS",
	0xFE534D42: "SMB2",
	0x5346414F: "AFS",
	0x0BD00BD0: "Lustre",
}

// ensureDir creates dir (and its parents) when missing, with mode 0700 for
// what it creates.
func ensureDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create lock directory: %w", err)
	}
	return nil
}

// CheckLocalFS returns an error matching ErrUnsupportedFS when dir is on a
// network file system (NFS, SMB/CIFS, AFS, Lustre). Synced folders (iCloud
// Drive, Dropbox, OneDrive) look local to the kernel and are not detected:
// keep the lock directory and registry out of them.
func CheckLocalFS(dir string) error {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return &os.PathError{Op: "statfs", Path: dir, Err: err}
	}
	return networkFSError(dir, st)
}

// checkLocalFile is CheckLocalFS for an open file.
func checkLocalFile(f *os.File) error {
	var st unix.Statfs_t
	if err := unix.Fstatfs(int(f.Fd()), &st); err != nil {
		return &os.PathError{Op: "fstatfs", Path: f.Name(), Err: err}
	}
	return networkFSError(f.Name(), st)
}

func networkFSError(name string, st unix.Statfs_t) error {
	if fs, ok := networkFS[int64(st.Type)]; ok {
		return fmt.Errorf("%s is on %s: %w (flock does not exclude reliably there; use a local folder)", name, fs, ErrUnsupportedFS)
	}
	return nil
}
