//go:build !unix

package plainfile

import "errors"

func mkfifo(string) error { return errors.New("no FIFOs on this system") }
