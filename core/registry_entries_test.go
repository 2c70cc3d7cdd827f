package core

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/store"
	"github.com/agentlock/agentlock/store/filestore"
)

// memEntries is a store.EntryDocument in memory: the document whole until
// the first write, then entries, and the copy a write renders.
type memEntries struct {
	mu      sync.Mutex
	whole   []byte
	entries map[string][]byte
	copy    []byte
	writes  int // entries written, the head included
}

func (m *memEntries) list() []store.Entry {
	if m.entries == nil {
		return nil
	}
	var out []store.Entry
	for id, data := range m.entries {
		out = append(out, store.Entry{ID: id, Data: data})
	}
	return out
}

func (m *memEntries) Read(context.Context) ([]byte, error) { return m.copy, nil }
func (m *memEntries) Edit(context.Context, func([]byte) ([]byte, error)) error {
	panic("the registry edits entries")
}
func (m *memEntries) Where() string { return "memory" }

func (m *memEntries) ReadEntries(_ context.Context, render func([]store.Entry) ([]byte, error)) ([]store.Entry, []byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.list(), m.whole, nil
}

func (m *memEntries) EditEntries(_ context.Context, change func([]store.Entry, []byte) ([]store.Entry, error), render func([]store.Entry) ([]byte, error)) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for {
		out, err := change(m.list(), m.whole)
		if err != nil || out == nil {
			return err
		}
		split := m.entries == nil && m.whole != nil
		if m.entries == nil {
			m.entries = map[string][]byte{}
		}
		for _, en := range out {
			m.writes++
			if en.Data == nil {
				delete(m.entries, en.ID)
			} else {
				m.entries[en.ID] = en.Data
			}
		}
		m.whole = nil
		if !split {
			m.copy, err = render(m.list())
			return err
		}
	}
}

// A registry kept in entries reads and writes as the one file does: a
// document written by hand (unknown keys, an entry that is no session, a
// repeated id) is split without losing anything, later edits write only
// the entries they change, and the copy is what the lock files write.
func TestRegistryInEntriesIsTheDocument(t *testing.T) {
	now := func() time.Time { return time.Date(2026, 12, 2, 3, 0, 0, 0, time.UTC) }
	handWritten := "---\nversion: \"1.0\"\nlast_updated: \"2026-01-01T00:00:00Z\"\nteam: blue\nagents:\n" +
		"  - session_id: zed\n    provider: test\n    status: working\n    colour: green\n" +
		"  - just a string\n" +
		"  - session_id: amy\n    provider: test\n    status: finished\n" +
		"  - session_id: zed\n    provider: twice\n    status: finished\n" +
		"---\n\nnotes\n"
	mem := &memEntries{whole: []byte(handWritten)}
	path := filepath.Join(t.TempDir(), "registry.md")
	require.NoError(t, os.WriteFile(path, []byte(handWritten), 0o644))
	opts := RegistryOptions{Now: now, Protocol: func() (string, error) { return "<!-- PROTOCOL -->", nil }}
	onEntries, onFile := NewRegistry(mem, opts), NewRegistry(&filestore.Document{Path: path}, opts)
	ctx := t.Context()

	for _, r := range []*Registry{onEntries, onFile} {
		_, err := r.Register(ctx, Session{SessionID: "bob", Provider: "test"})
		require.NoError(t, err)
	}
	var names []string
	for id := range mem.entries {
		names = append(names, id)
	}
	require.ElementsMatch(t, []string{"", "zed", "|1", "amy", "|3", "bob"}, names, "the head, a key per session, one per entry that is no session or repeats an id")
	for _, r := range []*Registry{onEntries, onFile} {
		_, err := r.HoldPaths(ctx, "amy", "/repo/a.go")
		require.NoError(t, err)
	}
	before := mem.writes
	_, err := onEntries.HoldPaths(ctx, "bob", "/repo/b.go")
	require.NoError(t, err)
	require.Equal(t, 1, mem.writes-before, "one session's change writes its entry alone (the head holds last_updated, the same on this clock)")
	_, err = onFile.HoldPaths(ctx, "bob", "/repo/b.go")
	require.NoError(t, err)

	fromEntries, err := onEntries.Load(ctx)
	require.NoError(t, err)
	fromFile, err := onFile.Load(ctx)
	require.NoError(t, err)
	ids := func(d Document) (out []string) {
		for _, s := range d.Agents {
			out = append(out, s.SessionID+"/"+s.Provider)
		}
		return out
	}
	require.Equal(t, ids(fromFile), ids(fromEntries))
	want, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, string(want), string(mem.copy), "the copy is what the lock files write")
	require.True(t, strings.Contains(string(mem.copy), "team: blue") && strings.Contains(string(mem.copy), "colour: green"), "unknown keys kept:\n%s", mem.copy)
}
