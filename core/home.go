package core

import (
	"os"
	"path/filepath"
)

// HomeDirName is the folder that holds a project's registry.md and locks/.
const HomeDirName = ".agent-registry"

// FindProject returns the project that a real path belongs to: the nearest
// folder, walking up from path (or from its parent when path is not an
// existing folder), that holds a HomeDirName folder or a .git entry. It
// returns "" when the path is in no project. Folders that do not exist yet
// are skipped, so a file about to be created finds its project too.
func FindProject(path string) string {
	dir := path
	if info, err := os.Stat(dir); err != nil || !info.IsDir() {
		dir = filepath.Dir(dir)
	}
	for {
		for _, marker := range []string{HomeDirName, ".git"} {
			if _, err := os.Lstat(filepath.Join(dir, marker)); err == nil {
				return dir
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}
