//go:build !unix && !etcd

package main

import (
	"errors"
	"os"
)

// dupStdin cannot replace the standard input on this system (agentlock
// refuses to run here anyway: see unsupported).
func dupStdin(*os.File) error { return errors.New("not supported on this system") }
