package integrations

import (
	"io/fs"
	"path/filepath"

	"github.com/agentlock/agentlock/internal/sys/atomicfile"
)

// Write applies c with the atomic writer: new content replaces the file
// (keeping its permissions) so that a reader, or a crash, sees the old
// content or the new, never a mix; the folders it creates are made
// durable; a deleted file's folders are removed when it leaves them empty,
// up to the root. Every error, including one from Sync or Close, is
// returned wrapped with the path. Write does not serialise writers: of two
// processes writing one file at once, one's content is left.
func (e Engine) Write(c Change) error {
	if !c.Changed() {
		return nil
	}
	root := e.root(c.Artifact.Scope)
	if c.Delete {
		return atomicfile.Remove(c.Path, root)
	}
	mode := c.Artifact.Mode
	if mode == 0 {
		mode = 0o644
	}
	// A private file's new folders are private too (Kimi Code's
	// ~/.kimi-code, which will hold API keys).
	dirMode := fs.FileMode(0o755)
	if mode&0o077 == 0 {
		dirMode = 0o700
	}
	if err := atomicfile.MkdirAll(filepath.Dir(c.Path), root, dirMode); err != nil {
		return err
	}
	return atomicfile.Write(c.Path, c.New, mode)
}
