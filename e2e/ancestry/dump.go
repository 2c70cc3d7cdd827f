//go:build linux

package ancestry

import (
	"flag"
	"fmt"
	"io"
	"os"
)

// Dump is the ancestry-dump program: it appends one Record describing its
// caller to a file: the chain of ancestors from the caller (its parent
// process) up, the environment variables Selected keeps, and, with -stdin,
// what it read on stdin (a hook's payload).
//
//	ancestry-dump [-stdin] <file> <label>
func Dump(args []string, stdin io.Reader, environ []string) error {
	fs := flag.NewFlagSet("ancestry-dump", flag.ContinueOnError)
	readStdin := fs.Bool("stdin", false, "keep stdin (a hook's payload) in the record")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 2 {
		return fmt.Errorf("usage: ancestry-dump [-stdin] <file> <label>")
	}
	chain, err := Chain(os.Getppid())
	if err != nil {
		return fmt.Errorf("ancestry: %w", err)
	}
	rec := Record{Label: fs.Arg(1), Chain: chain, Env: Selected(environ)}
	if *readStdin {
		in, err := io.ReadAll(io.LimitReader(stdin, 1<<20))
		if err != nil {
			return fmt.Errorf("read stdin: %w", err)
		}
		rec.Stdin = string(in)
	}
	return Append(fs.Arg(0), rec)
}
