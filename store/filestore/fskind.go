package filestore

import "io/fs"

// FileSystem describes the file system a folder is on, as far as this
// operating system lets agentlock tell (see FileSystemAt).
type FileSystem struct {
	// Name is the file system's name ("ext4", "apfs", "NFS"), or its raw
	// identifier when agentlock does not know it.
	Name string
	// Kind says whether flock(2) excludes reliably there.
	Kind FSKind
}

// FSKind classifies a file system for flock(2).
type FSKind int

const (
	// FSUnknown: agentlock cannot tell on this system, or does not know
	// this file system (FUSE, say, which may be sshfs or a synced drive).
	FSUnknown FSKind = iota
	// FSLocal: a local file system where flock excludes.
	FSLocal
	// FSNetwork: a network file system where flock does not exclude
	// reliably between machines; agentlock refuses it.
	FSNetwork
)

// String names the kind for people: "local", "network", "unknown".
func (k FSKind) String() string {
	switch k {
	case FSLocal:
		return "local"
	case FSNetwork:
		return "network"
	}
	return "unknown"
}

// TypeOf names a file's type for messages: "a file", "a FIFO", "a
// folder", ...
func TypeOf(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "a file"
	case m.IsDir():
		return "a folder"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "a special file"
}
