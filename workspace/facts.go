package workspace

import (
	"os"
	"path/filepath"
	"sync"

	"github.com/agentlock/agentlock/core"
)

// facts are what one command learned of the file system while it located
// paths: the project of each path and folder it asked about, the real
// paths of the paths it was given, of the user's home and of the folders
// it compared, and the repository-scope and shared homes of each project.
// (The working directory is resolved once by the command line, which gives
// it to the session service: cliconfig.Config.WorkDir.) Without them
// a lock call asked each question two to eight times (docs/speed.md: 215
// file system calls for one acquire, where 3c11506 made 97).
//
// The Cache a command gives to every Open (NewCache, which the session
// service of one command makes) keeps them for the command's life — for a
// renewal loop or a dashboard, as long as it keeps the workspaces it
// opened. The cache that Open makes for itself when the settings give none
// (init, doctor and their set-up steps, which write what these facts are
// read from) keeps none, and answers each question anew. agentlock's own
// writes that can change a fact (a home created or removed, a shared home
// recorded or dropped) forget them all.
type facts struct {
	mu       sync.Mutex
	dirs     map[projectKey]string
	paths    map[[2]string]resolved
	real     map[string]resolved
	projects map[projectKey]string
	repo     map[string]string
	shared   map[string]resolved
	// wd is WorkDir's answer, once found (wdFound): no write of
	// agentlock's moves the working directory, so forget keeps it.
	wd      resolved
	wdFound bool
}

// resolved is a path found, or the error of looking for it.
type resolved struct {
	path string
	err  error
}

// projectKey is a project look-up: the path, and the user's home, which
// marks no project by its .agent-registry alone (Settings.FindProject).
type projectKey struct{ path, userHome string }

// newFacts returns facts that know nothing yet.
func newFacts() *facts {
	f := &facts{}
	f.forget()
	return f
}

// forget drops every fact: the file system changed under them. A nil f
// keeps none.
func (f *facts) forget() {
	if f == nil {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.dirs, f.paths, f.real, f.projects, f.repo, f.shared = map[projectKey]string{}, map[[2]string]resolved{},
		map[string]resolved{}, map[projectKey]string{}, map[string]string{}, map[string]resolved{}
}

// remember returns what find gives for key in m, asking it once while f
// keeps facts; a nil f asks every time. find runs without f's lock held
// (it reads the file system, and may ask f for other facts).
func remember[K comparable, V any](f *facts, m func(*facts) map[K]V, key K, find func() V) V {
	if f == nil {
		return find()
	}
	f.mu.Lock()
	v, ok := m(f)[key]
	f.mu.Unlock()
	if ok {
		return v
	}
	v = find()
	f.mu.Lock()
	m(f)[key] = v
	f.mu.Unlock()
	return v
}

// realPath is core.RealPath(path, cwd), once per path (and folder, for a
// relative one). A real path is its own: the one found is remembered as
// such too, so that the engine, given it, resolves nothing again.
func (f *facts) realPath(path, cwd string) (string, error) {
	if filepath.IsAbs(path) {
		cwd = ""
	}
	r := remember(f, func(f *facts) map[[2]string]resolved { return f.paths }, [2]string{path, cwd}, func() resolved {
		if cwd == "" && !filepath.IsAbs(path) {
			// Relative to the working directory, whose real path the
			// command found once: not resolved again.
			if wd, err := f.workDir(); err == nil {
				real, err := core.RealPathIn(path, wd)
				return resolved{real, err}
			}
		}
		real, err := core.RealPath(path, cwd)
		return resolved{real, err}
	})
	if r.err == nil && f != nil && r.path != path {
		f.mu.Lock()
		f.paths[[2]string{r.path, ""}] = resolved{path: r.path}
		f.mu.Unlock()
	}
	return r.path, r.err
}

// workDir is WorkDir(), once (every time for a nil f).
func (f *facts) workDir() (string, error) {
	if f == nil {
		return WorkDir()
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.wdFound {
		f.wd.path, f.wd.err = WorkDir()
		f.wdFound = true
	}
	return f.wd.path, f.wd.err
}

// evalSymlinks is filepath.EvalSymlinks(path), once per path. A path
// that does not exist is found so with one system call, not one per
// folder of it (agent-registry 0.2's home, compared with every home, is
// missing almost everywhere).
func (f *facts) evalSymlinks(path string) (string, error) {
	r := remember(f, func(f *facts) map[string]resolved { return f.real }, path, func() resolved {
		if _, err := os.Stat(path); err != nil {
			return resolved{"", err}
		}
		real, err := filepath.EvalSymlinks(path)
		return resolved{real, err}
	})
	return r.path, r.err
}

// project is findProject(path) with the user's home userHome (either
// spelling: its real path resolved once), once per path.
func (f *facts) project(path, userHome string) string {
	return remember(f, func(f *facts) map[projectKey]string { return f.projects }, projectKey{path, userHome}, func() string {
		if userHome == "" {
			return findProject(path, "", "")
		}
		real, err := f.evalSymlinks(userHome)
		if err != nil {
			real = userHome
		}
		return f.walkProject(path, filepath.Clean(userHome), real)
	})
}

// walkProject is findProject: it walks up from path (or from its parent,
// when path is no folder) to the nearest folder marked as a project, where
// at userHome (either spelling) only .git marks one. f, when not nil,
// remembers the project of every folder walked, so that a walk from
// another path stops at the first folder one already walked.
func (f *facts) walkProject(path, userHome, realUserHome string) string {
	dir := path
	if info, err := os.Stat(dir); err != nil || !info.IsDir() {
		dir = filepath.Dir(dir)
	}
	var walked []string
	found := ""
walk:
	for {
		if project, ok := f.dirProject(projectKey{dir, userHome}); ok {
			found = project
			break
		}
		walked = append(walked, dir)
		for _, marker := range []string{HomeDirName, ".git"} {
			if marker == HomeDirName && userHome != "" && (dir == userHome || dir == realUserHome) {
				continue
			}
			if _, err := os.Lstat(filepath.Join(dir, marker)); err == nil {
				found = dir
				break walk
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	if f != nil {
		f.mu.Lock()
		for _, d := range walked {
			f.dirs[projectKey{d, userHome}] = found
		}
		f.mu.Unlock()
	}
	return found
}

// dirProject returns the project of a folder already walked, if any.
func (f *facts) dirProject(key projectKey) (string, bool) {
	if f == nil {
		return "", false
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	project, ok := f.dirs[key]
	return project, ok
}

// repoHome is the package's repoHome(project), once per project.
func (f *facts) repoHome(project string) string {
	return remember(f, func(f *facts) map[string]string { return f.repo }, project, func() string { return repoHome(project) })
}

// sharedHome is the package's sharedHome(project), once per project.
func (f *facts) sharedHome(project string) (string, error) {
	r := remember(f, func(f *facts) map[string]resolved { return f.shared }, project, func() resolved {
		home, err := sharedHome(project)
		return resolved{home, err}
	})
	return r.path, r.err
}

// sameFolder is SameFolder, each path resolved once.
func (f *facts) sameFolder(a, b string) bool {
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	ra, err := f.evalSymlinks(a)
	if err != nil {
		return false
	}
	rb, err := f.evalSymlinks(b)
	return err == nil && ra == rb
}

// facts returns the facts c keeps; nil (none kept) for a nil c or a
// cache that keeps none.
func (c *Cache) facts() *facts {
	if c == nil {
		return nil
	}
	return c.known
}

// RealPath is core.RealPath, each path resolved once per command when
// s.Cache keeps facts: the session service, the engine (the Locker's
// Options.RealPath) and the hooks resolve a path the command was given
// once between them.
func (s Settings) RealPath(path, cwd string) (string, error) {
	return s.Cache.facts().realPath(path, cwd)
}
