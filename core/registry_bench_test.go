package core

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/agentlock/agentlock/store/filestore"
)

// registryOf200 returns a registry file holding 200 sessions.
func registryOf200(b *testing.B) *Registry {
	b.Helper()
	r := NewRegistry(&filestore.Document{Path: filepath.Join(b.TempDir(), "registry.md")},
		RegistryOptions{Protocol: func() (string, error) { return "<!-- PROTOCOL:START -->\n<!-- PROTOCOL:END -->", nil }})
	for i := range 200 {
		id := fmt.Sprintf("session-%03d", i)
		if _, err := r.Register(b.Context(), Session{SessionID: id, Provider: "vendor", AIVersion: "m", WorkingOn: "working on " + id,
			Space: []string{"src/a", "src/b"}, Todo: Todo{Present: []string{"one", "two"}}}); err != nil {
			b.Fatal(err)
		}
	}
	return r
}

func BenchmarkRegistryUpdate200(b *testing.B) {
	r := registryOf200(b)
	for b.Loop() {
		if _, err := r.Update(b.Context(), "session-001", func(s *Session) { s.WorkingOn = "x" }); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRegistryLoad200(b *testing.B) {
	r := registryOf200(b)
	for b.Loop() {
		if _, err := r.Load(b.Context()); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRegistryRender200(b *testing.B) {
	r := registryOf200(b)
	doc, err := r.Load(b.Context())
	if err != nil {
		b.Fatal(err)
	}
	protocol, err := r.protocol()
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := renderRegistry(doc, protocol); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRegistryNoop200 is the registry side of an acquire or pre-edit
// hook of a registered session on a path its do_not_touch already lists:
// a change that changes nothing, which must write nothing.
func BenchmarkRegistryNoop200(b *testing.B) {
	r := registryOf200(b)
	if _, err := r.HoldPaths(b.Context(), "session-100", "/src/held.go"); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := r.HoldPaths(b.Context(), "session-100", "/src/held.go"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRegistryUnregistered200 is the registry side of an acquire by a
// session the registry does not list (a person's, a script's): the
// registry is parsed, unlocked, so that one that does not parse is
// reported, and nothing is written.
func BenchmarkRegistryUnregistered200(b *testing.B) {
	r := registryOf200(b)
	for b.Loop() {
		if _, err := r.HoldPaths(b.Context(), "nobody-registered", "/src/held.go"); err != nil {
			b.Fatal(err)
		}
	}
}
