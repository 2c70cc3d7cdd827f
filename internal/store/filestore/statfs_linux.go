package filestore

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// Magic numbers of network file systems on which flock(2) gives weak or no
// exclusion between machines (statfs(2) f_type).
var networkMagic = map[int64]string{
	0x6969:     "NFS",
	0x517B:     "SMB",
	0xFF534D42: "CIFS",
	0xFE534D42: "SMB2",
	0x5346414F: "AFS",
	0x0BD00BD0: "Lustre",
}

// checkLocalFile refuses a file on a network file system. Synced folders
// (iCloud Drive, Dropbox, OneDrive) look local to the kernel and are not
// detected.
func checkLocalFile(f *os.File) error { return checkLocal(int(f.Fd()), f.Name()) }

// checkLocal refuses the open file or folder fd, named name, when it is on
// a network file system.
func checkLocal(fd int, name string) error {
	var st unix.Statfs_t
	if err := unix.Fstatfs(fd, &st); err != nil {
		return &os.PathError{Op: "fstatfs", Path: name, Err: err}
	}
	if fs := networkMagic[int64(st.Type)]; fs != "" {
		return fmt.Errorf("%s is on %s: %w (flock does not exclude reliably there; use a local folder)", name, fs, ErrUnsupportedFS)
	}
	return nil
}
