// Package githook installs and removes agentlock's git pre-commit guard,
// the last line of defence for edits that bypassed every harness hook (a
// shell write, an agent without hooks): the guard runs "agentlock guard
// --staged", which refuses a commit that touches a file another live
// session holds.
//
// The hook goes where git runs hooks (core.hooksPath when set, else the
// repository's hooks folder): the caller passes that folder. A pre-commit
// hook of the user's is never overwritten: when it is a shell script,
// agentlock's lines go in a marked block right after its first line, and
// uninstalling removes exactly that block; any other hook is refused, with
// the line to add by hand.
package githook

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/agentlock/agentlock/integrations"
	"github.com/agentlock/agentlock/internal/sys/atomicfile"
)

// Name is the hook's file name in the hooks folder.
const Name = "pre-commit"

const (
	begin = "# BEGIN agentlock (managed by agentlock init --git-hook; edits inside are lost)"
	end   = "# END agentlock"
)

// ErrForeignHook is a pre-commit hook agentlock cannot chain into (not a
// shell script).
var ErrForeignHook = errors.New("the pre-commit hook is not a shell script")

// guardLine runs the guard when bin is installed and stops the commit when
// it refuses; without bin the commit goes on, as with the harness hooks.
func guardLine(bin string) string {
	return fmt.Sprintf("command -v %s >/dev/null 2>&1 && { %s guard --staged || exit 1; }", bin, bin)
}

// owned is the whole hook agentlock writes where there is none.
func owned(bin string) []byte {
	return []byte("#!/bin/sh\n# " + integrations.Marker + " — do not edit: `" + bin + " init --git-hook` rewrites this file and `" +
		bin + " uninit` removes it.\n# Refuses a commit that touches a file another live agentlock session holds.\n" +
		guardLine(bin) + "\n")
}

// block is agentlock's marked block inside the user's hook.
func block(bin string) string {
	return begin + "\n" + guardLine(bin) + "\n" + end + "\n"
}

// shellShebang matches the first line of a hook agentlock may chain into.
var shellShebang = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^#!\s*(/usr/bin/env\s+)?(/\S*/)?(sh|bash|dash|zsh|ksh)(\s.*)?$`)
})

// Change is what Install or Uninstall would do to the hook file.
type Change struct {
	Path     string
	Old, New []byte // nil: no file
	// Snippet is what to add by hand when the hook cannot be changed.
	Snippet string
}

// Changed reports whether the file would change.
func (c Change) Changed() bool {
	return (c.Old == nil) != (c.New == nil) || !bytes.Equal(c.Old, c.New)
}

// PlanInstall returns the change that installs the guard in hooksDir.
func PlanInstall(hooksDir, bin string) (Change, error) {
	c, err := read(filepath.Join(hooksDir, Name))
	if err != nil {
		return c, err
	}
	switch {
	case c.Old == nil:
		c.New = owned(bin)
	case bytes.Contains(c.Old, []byte(integrations.Marker)):
		c.New = owned(bin)
	default:
		lines := strings.SplitAfter(string(c.Old), "\n")
		first := strings.TrimRight(lines[0], "\r\n")
		if !shellShebang().MatchString(first) {
			c.Snippet = guardLine(bin)
			return c, fmt.Errorf("%s: %w (first line %q): add this line to it by hand: %s", c.Path, ErrForeignHook, first, c.Snippet)
		}
		rest := removeBlock(strings.Join(lines[1:], ""))
		if !strings.HasSuffix(lines[0], "\n") {
			lines[0] += "\n"
		}
		c.New = []byte(lines[0] + block(bin) + rest)
	}
	return c, nil
}

// PlanUninstall returns the change that removes the guard from hooksDir:
// agentlock's own hook is deleted, its block is cut from the user's.
func PlanUninstall(hooksDir string) (Change, error) {
	c, err := read(filepath.Join(hooksDir, Name))
	if err != nil || c.Old == nil {
		return c, err
	}
	if bytes.Contains(c.Old, []byte(integrations.Marker)) {
		return c, nil // New nil: delete
	}
	c.New = []byte(removeBlock(string(c.Old)))
	return c, nil
}

// Write applies c: an atomic write of an executable file, or its removal.
func Write(c Change) error {
	if !c.Changed() {
		return nil
	}
	if c.New == nil {
		if err := os.Remove(c.Path); err != nil {
			return fmt.Errorf("remove the git hook: %w", err)
		}
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(c.Path), 0o755); err != nil {
		return fmt.Errorf("create the git hooks folder: %w", err)
	}
	perm := fs.FileMode(0o755)
	if info, err := os.Stat(c.Path); err == nil {
		perm = info.Mode().Perm() | 0o111
	}
	if err := atomicfile.Write(c.Path, c.New, perm); err != nil {
		return fmt.Errorf("write the git hook: %w", err)
	}
	return nil
}

// read returns the hook file's current content (nil when there is none),
// refusing a symbolic link, which agentlock never writes through.
func read(path string) (Change, error) {
	c := Change{Path: path}
	info, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return c, fmt.Errorf("inspect the git hook: %w", err)
	}
	if !info.Mode().IsRegular() {
		return c, fmt.Errorf("%s is not a regular file (a symbolic link?): agentlock does not write through it; add this line to the hook by hand: %s",
			path, guardLine("agentlock"))
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return c, fmt.Errorf("read the git hook: %w", err)
	}
	c.Old = data
	return c, nil
}

// removeBlock returns text without agentlock's marked block (every one).
func removeBlock(text string) string {
	for {
		i := strings.Index(text, begin)
		if i < 0 {
			return text
		}
		j := strings.Index(text[i:], end)
		if j < 0 {
			return text // an open block is left to the user
		}
		k := i + j + len(end)
		if k < len(text) && text[k] == '\n' {
			k++
		}
		text = text[:i] + text[k:]
	}
}
