//go:build linux

package ancestry

import (
	"fmt"
	"os"
	"path/filepath"
)

// DumpName is the program name under which a test binary acts as
// ancestry-dump (see MainIfDump and Install).
const DumpName = "ancestry-dump"

// MainIfDump makes a test binary double as the ancestry-dump program: when
// the binary was started under DumpName (through the link Install made), it
// runs Dump and exits the process; otherwise it returns at once. Call it
// first thing in TestMain.
func MainIfDump() {
	if filepath.Base(os.Args[0]) != DumpName {
		return
	}
	if err := Dump(os.Args[1:], os.Stdin, os.Environ()); err != nil {
		fmt.Fprintln(os.Stderr, DumpName+":", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// Install links the running test binary into dir as DumpName and returns
// the link's path, for hooks and scripted commands to run.
func Install(dir string) (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("install %s: %w", DumpName, err)
	}
	link := filepath.Join(dir, DumpName)
	if err := os.Symlink(exe, link); err != nil {
		return "", fmt.Errorf("install %s: %w", DumpName, err)
	}
	return link, nil
}
