package all

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/agentlock/agentlock/integrations"
	"github.com/agentlock/agentlock/integrations/manifest"
)

// Sources are the folders of agent manifests that add agents without a
// rebuild, each "" when absent.
type Sources struct {
	// User is the user's folder: ~/.config/agentlock/agents
	// ($XDG_CONFIG_HOME/agentlock/agents).
	User string
	// Project is the project's folder (<project>/.agentlock/agents), where
	// init keeps a copy of each manifest given by path.
	Project string
}

// UserDir is the folder of the user's agent manifests, from the
// environment: $XDG_CONFIG_HOME/agentlock/agents, else
// ~/.config/agentlock/agents; "" when neither is known.
func UserDir(getenv func(string) string, home string) string {
	if x := getenv("XDG_CONFIG_HOME"); filepath.IsAbs(x) {
		return filepath.Join(x, "agentlock", "agents")
	}
	if home == "" {
		return ""
	}
	return filepath.Join(home, ".config", "agentlock", "agents")
}

// Load returns the built-in agents followed by those of the manifests in
// src (the project's, then the user's; a name met twice is the first).
// Each manifest that cannot be used is an error of its own, in one line
// naming the file and the field; the others are still loaded.
func Load(src Sources) (Set, []error) {
	set := Agents()
	var errs []error
	for _, dir := range []struct {
		path    string
		project bool
	}{{src.Project, true}, {src.User, false}} {
		if dir.path == "" {
			continue
		}
		entries, err := os.ReadDir(dir.path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("agent manifests: %w", err))
			continue
		}
		sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
		for _, e := range entries {
			if e.IsDir() || !strings.HasSuffix(e.Name(), ".toml") {
				continue
			}
			a, err := LoadFile(filepath.Join(dir.path, e.Name()))
			if err == nil && dir.project {
				a, err = projectCopy(a, filepath.Join(dir.path, e.Name()))
			}
			if err == nil {
				err = set.checkNew(a, filepath.Join(dir.path, e.Name()))
			}
			if err != nil {
				errs = append(errs, err)
				continue
			}
			set = append(set, a)
		}
	}
	return set, errs
}

// projectCopy is the agent of a manifest kept in the project: init plans
// the same copy again, so that --check finds it up to date and uninit
// removes it.
func projectCopy(a *manifest.Agent, path string) (*manifest.Agent, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("agent manifest %s: %w", path, err)
	}
	if want := manifest.CopyPath(a.Name()); !strings.HasSuffix(filepath.ToSlash(path), "/"+want) {
		return nil, fmt.Errorf("agent manifest %s: field name: %q, but the file is named %s: the project keeps agent <name> in %s", path, a.Name(), filepath.Base(path), manifest.CopyPath("<name>"))
	}
	return a.WithCopy(data), nil
}

// checkNew refuses an agent from path whose name is taken.
func (s Set) checkNew(a integrations.Agent, path string) error {
	if _, ok := s.Lookup(a.Name()); ok {
		return fmt.Errorf("agent manifest %s: field name: agent %q already exists", path, a.Name())
	}
	return nil
}

// LoadFile reads and parses one agent manifest.
func LoadFile(path string) (*manifest.Agent, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("agent manifest: %w", err)
	}
	return manifest.Load(data, path)
}

// IsManifestPath reports whether an --agent value names a manifest file
// rather than an agent: it ends in .toml.
func IsManifestPath(arg string) bool { return strings.HasSuffix(arg, ".toml") }

// Resolve is Select for the command line of init: an argument that is the
// path of a manifest (IsManifestPath) loads that file, and plans a copy of
// it in the project; the others are names in s.
func (s Set) Resolve(args []string) ([]integrations.Agent, error) {
	var names []string
	var files []integrations.Agent
	for _, arg := range args {
		if !IsManifestPath(arg) {
			names = append(names, arg)
			continue
		}
		a, err := LoadFile(arg)
		if err != nil {
			return nil, err
		}
		if builtinName(a.Name()) {
			return nil, fmt.Errorf("agent manifest %s: field name: agent %q is built in: choose another name", arg, a.Name())
		}
		data, err := os.ReadFile(arg)
		if err != nil {
			return nil, fmt.Errorf("agent manifest: %w", err)
		}
		files = append(files, a.WithCopy(data))
	}
	out, err := s.Select(names)
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		// The file given wins over the project's copy of an older version.
		out = slices.DeleteFunc(out, func(a integrations.Agent) bool { return a.Name() == f.Name() })
		out = append(out, f)
	}
	return out, nil
}

// builtinName reports whether name is a built-in agent's.
func builtinName(name string) bool {
	_, ok := Agents().Lookup(name)
	return ok
}
