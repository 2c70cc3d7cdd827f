//go:build !unix

package proctest

// KeepInheritedFiles does nothing where processes are not started the
// Unix way (see fds_unix.go): the tests run on Unix only.
func KeepInheritedFiles() error { return nil }
