package manifest

import (
	"embed"
	"fmt"
	"path"
	"strings"
	"sync"
)

//go:embed builtin/*.toml
var builtinFiles embed.FS

// builtins parses the embedded manifests once; they are checked by the
// tests, so a malformed one is a bug of the build.
var builtins = sync.OnceValues(func() (map[string]*Agent, error) {
	entries, err := builtinFiles.ReadDir("builtin")
	if err != nil {
		return nil, fmt.Errorf("built-in agent manifests: %w", err)
	}
	agents := map[string]*Agent{}
	for _, e := range entries {
		data, err := builtinFiles.ReadFile(path.Join("builtin", e.Name()))
		if err != nil {
			return nil, fmt.Errorf("built-in agent manifests: %w", err)
		}
		a, err := Load(data, "builtin:"+e.Name())
		if err != nil {
			return nil, err
		}
		if want := strings.TrimSuffix(e.Name(), ".toml"); a.Name() != want {
			return nil, fmt.Errorf("built-in agent manifest %s names agent %q", e.Name(), a.Name())
		}
		agents[a.Name()] = a
	}
	return agents, nil
})

// Builtin returns the embedded manifest agent called name. It panics when
// there is none or it does not parse: the list of built-in agents names
// only manifests that ship, and a test parses each.
func Builtin(name string) *Agent {
	agents, err := builtins()
	if err != nil {
		panic(err)
	}
	a, ok := agents[name]
	if !ok {
		panic(fmt.Sprintf("no built-in agent manifest %q", name))
	}
	return a
}

// BuiltinNames returns the names of the embedded manifests.
func BuiltinNames() ([]string, error) {
	agents, err := builtins()
	if err != nil {
		return nil, err
	}
	var names []string
	for name := range agents {
		names = append(names, name)
	}
	return names, nil
}
