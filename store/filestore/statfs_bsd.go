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

// localNames are the f_fstypename of common local file systems. Any other
// (macfuse, say, which sshfs and synced drives use) is unknown.
var localNames = map[string]bool{
	"apfs": true, "hfs": true, "ufs": true, "zfs": true, "tmpfs": true,
	"msdos": true, "exfat": true,
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
	if fs := networkNames[typeName(&st)]; fs != "" {
		return fmt.Errorf("%s is on %s: %w (flock does not exclude reliably there; use a local folder)", name, fs, ErrUnsupportedFS)
	}
	return nil
}

// FileSystemAt tells which file system the existing path is on, from
// statfs(2)'s f_fstypename. It reads nothing else and changes nothing.
func FileSystemAt(path string) (FileSystem, error) {
	var st unix.Statfs_t
	if err := unix.Statfs(path, &st); err != nil {
		return FileSystem{}, &os.PathError{Op: "statfs", Path: path, Err: err}
	}
	name := typeName(&st)
	switch {
	case networkNames[name] != "":
		return FileSystem{Name: networkNames[name], Kind: FSNetwork}, nil
	case localNames[name]:
		return FileSystem{Name: name, Kind: FSLocal}, nil
	}
	return FileSystem{Name: name, Kind: FSUnknown}, nil
}

// typeName returns statfs(2)'s f_fstypename as a string.
func typeName(st *unix.Statfs_t) string {
	var name []byte
	for _, c := range st.Fstypename {
		if c == 0 {
			break
		}
		name = append(name, byte(c))
	}
	return string(name)
}
