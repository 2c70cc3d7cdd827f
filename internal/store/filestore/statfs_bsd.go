//go:build darwin || freebsd

package filestore

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// networkNames maps the file system type names of BSD statfs(2) to the
// network file systems on which flock(2) gives weak or no exclusion.
var networkNames = map[string]string{
	"nfs":    "NFS",
	"smbfs":  "SMB",
	"afpfs":  "AFP",
	"webdav": "WebDAV",
}

// checkLocalFile refuses a file on a network file system. Synced folders
// look local to the kernel and are not detected.
func checkLocalFile(f *os.File) error { return checkLocal(int(f.Fd()), f.Name()) }

// checkLocal refuses the open file or folder fd, named name, when it is on
// a network file system.
func checkLocal(fd int, name string) error {
	var st unix.Statfs_t
	if err := unix.Fstatfs(fd, &st); err != nil {
		return &os.PathError{Op: "fstatfs", Path: name, Err: err}
	}
	var fsName []byte
	for _, c := range st.Fstypename {
		if c == 0 {
			break
		}
		fsName = append(fsName, byte(c))
	}
	if fs := networkNames[string(fsName)]; fs != "" {
		return fmt.Errorf("%s is on %s: %w (flock does not exclude reliably there; use a local folder)", name, fs, ErrUnsupportedFS)
	}
	return nil
}
