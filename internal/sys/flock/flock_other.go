//go:build !unix

package flock

import (
	"context"
	"errors"
	"io/fs"
	"time"
)

// Supported reports whether this system has flock(2).
const Supported = false

// Lock fails: this system has no flock(2).
func Lock(_ context.Context, _ int, name string, m Mode, _ time.Duration) error {
	return &fs.PathError{Op: m.String(), Path: name, Err: errors.ErrUnsupported}
}

// TryLock fails: this system has no flock(2).
func TryLock(_ int, name string, m Mode) (bool, error) {
	return false, &fs.PathError{Op: m.String(), Path: name, Err: errors.ErrUnsupported}
}

// LockBlocking fails: this system has no flock(2).
func LockBlocking(_ int, name string, m Mode) error {
	return &fs.PathError{Op: m.String(), Path: name, Err: errors.ErrUnsupported}
}
