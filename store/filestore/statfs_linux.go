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

// localMagic are the statfs(2) f_type of common local file systems. Any
// other (FUSE among them: sshfs and synced drives use it) is unknown.
var localMagic = map[int64]string{
	0xEF53:     "ext4",
	0x58465342: "xfs",
	0x9123683E: "btrfs",
	0x01021994: "tmpfs",
	0x794C7630: "overlayfs",
	0x2FC12FC1: "zfs",
	0xF2F52010: "f2fs",
	0x3153464A: "jfs",
	0x52654973: "reiserfs",
	0x4244:     "hfs",
	0x4D44:     "vfat",
	0x2011BAB0: "exfat",
	0x5346544E: "ntfs",
	0x858458F6: "ramfs",
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

// FileSystemAt tells which file system the existing path is on, from
// statfs(2)'s f_type. It reads nothing else and changes nothing.
func FileSystemAt(path string) (FileSystem, error) {
	var st unix.Statfs_t
	if err := unix.Statfs(path, &st); err != nil {
		return FileSystem{}, &os.PathError{Op: "statfs", Path: path, Err: err}
	}
	magic := int64(st.Type)
	if name := networkMagic[magic]; name != "" {
		return FileSystem{Name: name, Kind: FSNetwork}, nil
	}
	if name := localMagic[magic]; name != "" {
		return FileSystem{Name: name, Kind: FSLocal}, nil
	}
	return FileSystem{Name: fmt.Sprintf("f_type 0x%X", magic), Kind: FSUnknown}, nil
}
