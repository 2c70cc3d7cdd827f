//go:build unix && !linux && !darwin && !freebsd

package filestore

import "os"

// checkLocalFile cannot tell network file systems apart on this system:
// every file is taken as local.
func checkLocalFile(*os.File) error { return nil }

func checkLocal(int, string) error { return nil }
