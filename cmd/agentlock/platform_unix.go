//go:build unix

package main

// unsupported returns nil: this system is supported.
func unsupported() error { return nil }
