package workspace

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/agentlock/agentlock/core"
	"github.com/agentlock/agentlock/internal/sys/atomicfile"
	"github.com/agentlock/agentlock/internal/sys/plainfile"
	"github.com/agentlock/agentlock/store"
	"github.com/agentlock/agentlock/store/filestore"
)

// A project may keep its locks and registry in a distributed store — an
// etcd cluster, for agents on several machines — instead of its
// .agent-registry folder. The project then holds the file
// .agent-registry/store, written by `agentlock init --store URL`: one
// "name=value" per line, the URL first. AGENTLOCK_STORE (Settings.Store)
// names a store for every project instead. The URL's scheme picks the
// backend (Backends: "file:" is the lock files, "etcd://" the etcd
// store); a build that does not link it (the default one, for etcd)
// refuses with ErrNoRemote rather than lock files nobody else sees.

// StoreFile is the file, inside a project's HomeDirName folder, that names
// the project's distributed store.
const StoreFile = "store"

// StoreSpec names a project's store and how to reach it (see store.Spec).
type StoreSpec = store.Spec

// overSpec returns s with the fields that o sets replaced by o's.
func overSpec(s, o StoreSpec) StoreSpec {
	pick := func(a *string, b string) {
		if b != "" {
			*a = b
		}
	}
	pick(&s.URL, o.URL)
	pick(&s.CACert, o.CACert)
	pick(&s.Cert, o.Cert)
	pick(&s.Key, o.Key)
	pick(&s.User, o.User)
	pick(&s.Password, o.Password)
	pick(&s.RepoID, o.RepoID)
	pick(&s.Scope, o.Scope)
	if o.DialTimeout > 0 {
		s.DialTimeout = o.DialTimeout
	}
	return s
}

// specFields are the names of the store file, in the order written.
func specFields(s *StoreSpec) []struct {
	name string
	v    *string
} {
	return []struct {
		name string
		v    *string
	}{{"store", &s.URL}, {"cacert", &s.CACert}, {"cert", &s.Cert}, {"key", &s.Key},
		{"user", &s.User}, {"password", &s.Password}, {"repo-id", &s.RepoID}, {"scope", &s.Scope}}
}

// storeFileOf is the store file of project: the one of the home every
// worktree shares in repository scope, else the project's own.
func storeFileOf(project string) string { return storeFileIn(project, repoHome(project)) }

// storeFileIn is the store file of project whose repository-scope home is
// repoHome ("" for none).
func storeFileIn(project, repoHome string) string {
	if repoHome != "" {
		return filepath.Join(repoHome, StoreFile)
	}
	return filepath.Join(project, HomeDirName, StoreFile)
}

// ReadStoreSpec reads the store file of project (in repository scope, the
// shared home's: see RepoHome); a zero StoreSpec when it has none.
func ReadStoreSpec(project string) (StoreSpec, error) {
	return readStoreSpec(project, repoHome(project))
}

// readStoreSpec is ReadStoreSpec for a project whose repository-scope home
// is known to be repoHome ("" for none).
func readStoreSpec(project, repoHome string) (StoreSpec, error) {
	var s StoreSpec
	if project == "" {
		return s, nil
	}
	file := storeFileIn(project, repoHome)
	data, err := plainfile.ReadFile(file)
	if errors.Is(err, fs.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return s, fmt.Errorf("store configuration: %w", err)
	}
	for n, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, value, ok := strings.Cut(line, "=")
		name, value = strings.TrimSpace(name), strings.TrimSpace(value)
		known := false
		for _, f := range specFields(&s) {
			if f.name == name {
				*f.v, known = value, true
			}
		}
		if name == "dial-timeout" {
			if s.DialTimeout, err = time.ParseDuration(value); err != nil {
				return s, fmt.Errorf("%s:%d: dial-timeout: %w", file, n+1, err)
			}
			known = true
		}
		if !ok || !known {
			return s, fmt.Errorf("%s:%d: want name=value with a name among store, cacert, cert, key, user, password, repo-id, dial-timeout, scope: %q", file, n+1, line)
		}
	}
	if !s.Set() && s.Scope == "" {
		return s, fmt.Errorf("%s names no store (store=etcd://host:2379/prefix)", file)
	}
	return s, nil
}

// WriteStoreSpec records spec as project's store (readable by its owner
// only: it may hold a password); a spec without URL removes the record.
// It reports whether anything changed.
func WriteStoreSpec(project string, spec StoreSpec) (bool, error) {
	file := storeFileOf(project)
	if file != filepath.Join(project, HomeDirName, StoreFile) {
		// The shared home's file keeps the scope whatever store is set.
		spec.Scope = ScopeRepository
	}
	old, _ := plainfile.ReadFile(file)
	if !spec.Set() && spec.Scope == "" {
		if old == nil {
			return false, nil
		}
		if err := os.Remove(file); err != nil {
			return false, fmt.Errorf("store configuration: %w", err)
		}
		return true, nil
	}
	content := renderSpec(spec)
	if string(old) == content {
		return false, nil
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		return false, fmt.Errorf("store configuration: %w", err)
	}
	if err := atomicfile.Write(file, []byte(content), 0o600); err != nil {
		return false, fmt.Errorf("store configuration: %w", err)
	}
	return true, nil
}

// CheckStore asks the store spec names whether it can serve project, as
// the project would use it once spec is recorded: it opens the store for
// the project (naming the repository there, from its origin remote or
// spec's id) and reads the registry. It writes nothing, in the store or in
// the project. An error says what is wrong: a build without that store
// (ErrNoRemote), an unknown scheme, no repository id, a cluster that does
// not answer within the store's dial timeout or ctx's deadline. init runs
// it before it records a store, so that a store nobody can use is never
// left recorded.
func CheckStore(ctx context.Context, project string, spec StoreSpec, s Settings) error {
	_, doc, err := s.Backends.open(spec, store.Checkout{Root: project, Timeout: s.timeout(), Now: s.Now})
	if err != nil {
		return err
	}
	if _, err := doc.Read(ctx); err != nil {
		return err
	}
	return nil
}

// renderSpec is the content of a store file recording spec.
func renderSpec(spec StoreSpec) string {
	var b strings.Builder
	if spec.Scope == ScopeRepository {
		b.WriteString("# agentlock: every worktree of this repository shares this home (agentlock init --scope repository)\n")
	}
	if spec.Set() {
		b.WriteString("# agentlock: this project's locks and registry live in this store (agentlock init --store)\n")
	}
	for _, f := range specFields(&spec) {
		if *f.v != "" {
			fmt.Fprintf(&b, "%s=%s\n", f.name, *f.v)
		}
	}
	if spec.DialTimeout > 0 {
		fmt.Fprintf(&b, "dial-timeout=%s\n", spec.DialTimeout)
	}
	return b.String()
}

// ErrNoRemote is the error of Open for a workspace configured for a
// distributed store in a build that has none.
var ErrNoRemote = errors.New("this agentlock build has no etcd store")

// ErrUnknownScheme is the error of Open for a store URL whose scheme no
// agentlock build knows.
var ErrUnknownScheme = errors.New("unknown store scheme")

// storeOf resolves the store a workspace of project uses: the project's
// store file under AGENTLOCK_STORE's settings.
func (s Settings) storeOf(project string) (StoreSpec, error) {
	spec, err := readStoreSpec(project, s.Cache.facts().repoHome(project))
	if err != nil {
		return spec, err
	}
	return overSpec(spec, s.Store), nil
}

// openRemote sets the stores of a workspace whose spec names a
// distributed store: the backend of its URL's scheme opens them.
func (w *Workspace) openRemote(spec StoreSpec) error {
	w.spec = spec
	locks, doc, err := w.settings.Backends.open(spec, store.Checkout{
		Root: w.Project, Registry: w.RegistryPath, Timeout: w.settings.timeout(), Now: w.settings.Now})
	if errors.Is(err, ErrUnknownScheme) {
		return fmt.Errorf("%s keeps its locks in %q: %w %q (the one known scheme is etcd://host:2379/prefix; check AGENTLOCK_STORE or %s)",
			w.Project, spec.URL, ErrUnknownScheme, spec.Scheme(), filepath.Join(HomeDirName, StoreFile))
	}
	if errors.Is(err, ErrNoRemote) {
		return fmt.Errorf("%s keeps its locks in %s: %w; install agentlock-etcd (go build -tags etcd -o agentlock-etcd ./cmd/agentlock) beside agentlock or on PATH, and agentlock runs it", w.Project, spec.URL, err)
	}
	if err != nil {
		return err
	}
	w.locks, w.doc = locks, doc
	return nil
}

// Store returns the distributed store the workspace uses; zero with the
// lock files.
func (w *Workspace) Store() StoreSpec { return w.spec }

// LockStore returns the workspace's lock store, for checks that need the
// store itself (agentlock doctor).
func (w *Workspace) LockStore() store.Locks {
	if w.locks != nil {
		return w.locks
	}
	return w.settings.fileLocks(w.settings.lockDirFor, w.LockDir)
}

// lockStore is the store behind Locker: each path's project decides (see
// router).
func (w *Workspace) lockStore() store.Locks { return newRouter(w) }

// fileLocks returns the lock files of the folders dirFor gives, Scan
// listing scanDir, judged with the settings' timeout and clock.
func (s Settings) fileLocks(dirFor func(string) (string, error), scanDir string) *filestore.Locks {
	return &filestore.Locks{DirFor: dirFor, ScanDir: scanDir, Wait: s.LockWait, Timeout: s.timeout(), Now: s.Now}
}

// timeout is the staleness timeout, core.DefaultTimeout when unset.
func (s Settings) timeout() time.Duration {
	if s.Timeout > 0 {
		return s.Timeout
	}
	return core.DefaultTimeout
}
