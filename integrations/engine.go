package integrations

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Engine installs and uninstalls planned artifacts. It is the one place
// that reads and writes the files of every agent.
type Engine struct {
	// ProjectRoot is the real path of the project's root folder.
	ProjectRoot string
	// UserHome is the real path of the user's home folder, the root of
	// User-scope artifacts.
	UserHome string
	// Fingerprint identifies agentlock's hook entries in JSON settings:
	// their command contains it ("agentlock hook ").
	Fingerprint string
}

// ErrReadOnly is matched by Install's refusal of an existing file whose
// mode lacks the owner's write bit: the fix is its mode, not its content.
var ErrReadOnly = errors.New("read-only")

// Change is what installing or uninstalling one artifact does to its file.
type Change struct {
	Artifact Artifact
	// Path is the file's absolute path.
	Path string
	// Old is the file's content now; Existed says whether it exists.
	Old     []byte
	Existed bool
	// New is the content after the change; Delete means the file goes.
	New    []byte
	Delete bool
	// Note explains a change that was left undone on purpose.
	Note string
	// perm is the existing file's permission bits.
	perm fs.FileMode
}

// Changed reports whether applying c would change the file system.
func (c Change) Changed() bool {
	if c.Delete {
		return c.Existed
	}
	return !c.Existed || !bytes.Equal(c.Old, c.New)
}

// Install computes the change that installs a, without writing.
func (e Engine) Install(a Artifact) (Change, error) {
	c, err := e.current(a)
	if err != nil {
		return c, err
	}
	switch a.Kind {
	case OwnedFile:
		if c.Existed && !hasMarker(c.Old) {
			return c, fmt.Errorf("%s exists and was not written by agentlock: move it away, then run init again", c.Path)
		}
		c.New = a.Content
	case ManagedBlock:
		c.New, err = installBlock(c.Old, a)
	case TOMLBlock:
		c.New, err = installTOMLBlock(c.Old, a, e.Fingerprint)
	case JSONHooks:
		c.New, err = installHooks(c.Old, a.Content, e.Fingerprint)
		if err == nil && a.MCP != nil {
			c.New, err = installMCP(c.New, a.MCP)
		}
	case MCPEntry:
		c.New, err = installMCP(c.Old, a.Content)
	}
	if err != nil {
		return c, fmt.Errorf("%s: %w", c.Path, err)
	}
	// A file its owner made read-only is one they mean to keep as it is;
	// the rename would replace it regardless (and root writes anywhere),
	// so the mode bits decide.
	if c.Existed && c.Changed() && c.perm&0o200 == 0 {
		return c, fmt.Errorf("%s is %w (mode %04o): make it writable (chmod u+w), then run init again", c.Path, ErrReadOnly, c.perm)
	}
	return c, nil
}

// Uninstall computes the change that removes a, without writing: owned
// files that carry the marker are deleted, blocks and hook entries are
// cut out, and a user file that held nothing else is deleted.
func (e Engine) Uninstall(a Artifact) (Change, error) {
	c, err := e.current(a)
	if err != nil || !c.Existed {
		c.Delete = true // nothing there: nothing to do (Changed is false)
		return c, err
	}
	switch a.Kind {
	case OwnedFile:
		if !hasMarker(c.Old) {
			c.New = c.Old
			c.Note = "kept: it was not written by agentlock"
			return c, nil
		}
		c.Delete = true
	case ManagedBlock:
		c.New, err = removeBlocks(c.Old, a.Comment)
	case TOMLBlock:
		c.New, err = removeTOMLBlock(c.Old, a.Comment, e.Fingerprint)
	case JSONHooks:
		// The MCP entry was added after the hooks: it goes first.
		if c.New, err = removeMCP(c.Old); err == nil {
			c.New, err = removeHooks(c.New, e.Fingerprint)
		}
	case MCPEntry:
		c.New, err = removeMCP(c.Old)
	}
	if err != nil {
		return c, fmt.Errorf("%s: %w", c.Path, err)
	}
	if a.Kind != OwnedFile {
		c.Delete = len(bytes.TrimSpace(c.New)) == 0
	}
	// As for Install: a file its owner made read-only is meant to stay as
	// it is, removed or rewritten.
	if c.Changed() && c.perm&0o200 == 0 {
		return c, fmt.Errorf("%s is %w (mode %04o): make it writable (chmod u+w), then run uninit again", c.Path, ErrReadOnly, c.perm)
	}
	return c, nil
}

// current resolves a's path and reads the file there. It refuses paths
// that leave their root, that go through a symbolic link, and files that
// are not regular or have other hard links: agentlock writes only where it
// means to.
func (e Engine) current(a Artifact) (Change, error) {
	c := Change{Artifact: a}
	root, rel := e.root(a.Scope), a.Path
	if a.Scope == User && filepath.IsAbs(a.Path) {
		// A folder the user named (KIMI_CODE_HOME): it is checked from
		// there on, as the home is.
		root, rel = filepath.Dir(a.Path), filepath.Base(a.Path)
	}
	if root == "" || !filepath.IsLocal(rel) {
		return c, fmt.Errorf("%s: outside the %s folder", a.Path, a.Scope)
	}
	c.Path = filepath.Join(root, rel)
	dir := root
	for _, part := range strings.Split(filepath.Clean(rel), string(filepath.Separator)) {
		dir = filepath.Join(dir, part)
		info, err := os.Lstat(dir)
		if errors.Is(err, fs.ErrNotExist) {
			return c, nil
		}
		if err != nil {
			return c, fmt.Errorf("inspect %s: %w", dir, err)
		}
		if info.Mode()&fs.ModeSymlink != 0 {
			return c, fmt.Errorf("%s is a symbolic link: agentlock does not write through links", dir)
		}
		if dir == c.Path {
			if !info.Mode().IsRegular() {
				return c, fmt.Errorf("%s is not a regular file", dir)
			}
			if hardLinks(info) > 1 {
				return c, fmt.Errorf("%s has other hard links: agentlock does not write through links", dir)
			}
			c.perm = info.Mode().Perm()
		}
	}
	data, err := os.ReadFile(c.Path)
	if err != nil {
		return c, fmt.Errorf("read %s: %w", c.Path, err)
	}
	c.Old, c.Existed = data, true
	return c, nil
}

// root is the folder that artifacts of scope live below.
func (e Engine) root(scope Scope) string {
	if scope == User {
		return e.UserHome
	}
	return e.ProjectRoot
}

// hasMarker reports whether an owned file carries Marker in its first lines
// (after a shebang or a frontmatter opening).
func hasMarker(data []byte) bool {
	head := data
	for i, n := 0, 0; i < len(data); i++ {
		if data[i] == '\n' {
			if n++; n == 5 {
				head = data[:i]
				break
			}
		}
	}
	return bytes.Contains(head, []byte(Marker))
}
