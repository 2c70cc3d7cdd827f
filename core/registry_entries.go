package core

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/agentlock/agentlock/store"
)

// entryDocument presents a store that keeps the registry in entries, one
// per session (store.EntryDocument: etcd), as the one document the
// registry engine reads and edits. An edit still sees the whole registry,
// read at one revision, but writes only the entries it changed: two
// sessions registering, or acquiring different files, write different
// entries and never make each other retry. registry.md, this machine's
// copy, is rendered from the entries in the format it always had.
//
// An entry is a session's frontmatter as registry.md writes it, after a
// line "#<n>" that keeps the sessions in the order they came (a new
// session comes after every one read). The head entry holds the rest of
// the frontmatter: version, last_updated and unknown keys. An entry of
// the agents list that is no session, or repeats a session id, is an
// entry of its own, "|<n>" (see split).
type entryDocument struct {
	store.EntryDocument
	r *Registry
}

// Read implements store.Document: the frontmatter of the registry joined
// from its entries, or the whole document the store still holds.
func (e entryDocument) Read(ctx context.Context) ([]byte, error) {
	entries, whole, err := e.ReadEntries(ctx, e.renderer(ctx))
	if err != nil || entries == nil {
		return whole, err
	}
	doc, _, err := e.join(entries)
	if err != nil {
		return nil, err
	}
	return frontmatterOnly(doc)
}

// Edit implements store.Document: change gets the whole registry and
// returns it whole; only the entries whose content differs are written.
func (e entryDocument) Edit(ctx context.Context, change func(old []byte) ([]byte, error)) error {
	// The document the last run of change wrote, and its entries: the
	// copy of this machine is that document when the store wrote exactly
	// these entries, with no render (and no idle check) again.
	var wrote []byte
	var wroteEntries []store.Entry
	render := func(entries []store.Entry) ([]byte, error) {
		if wrote != nil && sameEntries(entries, wroteEntries) {
			return wrote, nil
		}
		return e.renderer(ctx)(entries)
	}
	return e.EditEntries(ctx, func(entries []store.Entry, whole []byte) ([]store.Entry, error) {
		wrote, wroteEntries = nil, nil
		if entries == nil && whole != nil {
			// Split as it is first (see store.EntryDocument).
			doc, err := parseRegistry(e.r.Where(), whole)
			if err != nil {
				return nil, err
			}
			return split(doc, nil)
		}
		old := whole
		before := map[string][]byte{}
		var order map[string]int
		if entries != nil {
			doc, ord, err := e.join(entries)
			if err != nil {
				return nil, err
			}
			if old, err = frontmatterOnly(doc); err != nil {
				return nil, err
			}
			for _, en := range entries {
				before[en.ID] = en.Data
			}
			order = ord
		}
		next, err := change(old)
		if err != nil || next == nil {
			return nil, err
		}
		doc, err := parseRegistry(e.r.Where(), next)
		if err != nil {
			return nil, err
		}
		after, err := split(doc, order)
		if err != nil {
			return nil, err
		}
		wrote, wroteEntries = next, after
		var out []store.Entry
		kept := map[string]bool{}
		for _, en := range after {
			kept[en.ID] = true
			if old, ok := before[en.ID]; entries == nil || !ok || !bytes.Equal(old, en.Data) {
				out = append(out, en)
			}
		}
		for _, en := range entries {
			if !kept[en.ID] {
				out = append(out, store.Entry{ID: en.ID}) // the session left the registry
			}
		}
		return out, nil
	}, render)
}

// sameEntries reports whether a and b hold the same entries, in any order.
func sameEntries(a, b []store.Entry) bool {
	if len(a) != len(b) {
		return false
	}
	byID := make(map[string][]byte, len(a))
	for _, en := range a {
		byID[en.ID] = en.Data
	}
	for _, en := range b {
		if data, ok := byID[en.ID]; !ok || !bytes.Equal(data, en.Data) {
			return false
		}
	}
	return true
}

// renderer renders the whole registry.md of entries, as a write renders it.
func (e entryDocument) renderer(ctx context.Context) func([]store.Entry) ([]byte, error) {
	return func(entries []store.Entry) ([]byte, error) {
		doc, _, err := e.join(entries)
		if err != nil {
			return nil, err
		}
		protocol, err := e.r.protocol()
		if err != nil {
			return nil, err
		}
		if e.r.idle != nil {
			doc.idle = e.r.idle(ctx, doc.Agents)
		}
		return renderRegistry(doc, protocol)
	}
}

// frontmatterOnly renders doc's frontmatter alone: what the engine parses.
func frontmatterOnly(doc Document) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString("---\n")
	if err := encodeFrontmatter(&b, doc); err != nil {
		return nil, err
	}
	b.WriteString("---\n")
	return b.Bytes(), nil
}

// join reads entries back into one document, the sessions in their order,
// and returns each session's place in it.
func (e entryDocument) join(entries []store.Entry) (Document, map[string]int, error) {
	doc := Document{Version: RegistryVersion, Agents: []Session{}}
	type placed struct {
		n int
		s Session
	}
	var sessions []placed
	order := map[string]int{}
	for _, en := range entries {
		if en.ID == "" {
			head, err := decodeFrontmatter(string(en.Data))
			if err != nil {
				return Document{}, nil, fmt.Errorf("%s: %w: the head entry: %v", e.r.Where(), ErrCorruptRegistry, err)
			}
			rest := head.Agents
			head.Agents = doc.Agents
			doc, doc.Agents = head, append(doc.Agents, rest...)
			continue
		}
		first, rest, _ := strings.Cut(string(en.Data), "\n")
		n, err := strconv.Atoi(strings.TrimPrefix(first, "#"))
		one, derr := decodeFrontmatter(rest)
		if err != nil || !strings.HasPrefix(first, "#") || derr != nil || len(one.Agents) != 1 {
			return Document{}, nil, fmt.Errorf("%s: %w: the entry of session %s cannot be read (%v)", e.r.Where(), ErrCorruptRegistry, en.ID, cmp.Or(derr, err))
		}
		sessions = append(sessions, placed{n, one.Agents[0]})
		order[en.ID] = n
	}
	slices.SortStableFunc(sessions, func(a, b placed) int {
		return cmp.Or(cmp.Compare(a.n, b.n), cmp.Compare(a.s.SessionID, b.s.SessionID))
	})
	kept := doc.Agents // the head's: not sessions, or repeated ids
	doc.Agents = make([]Session, 0, len(sessions)+len(kept))
	for _, p := range sessions {
		doc.Agents = append(doc.Agents, p.s)
	}
	doc.Agents = append(doc.Agents, kept...)
	return doc, order, nil
}

// split cuts doc into its entries: the head, then one per session. order
// is each entry's place as read; a new session comes after them all. An
// entry of the agents list that is no session, or repeats a session id
// (or names one starting with '|'), gets an entry of its own too, named
// "|<its place>": they keep their places, and agentlock never changes
// them.
func split(doc Document, order map[string]int) ([]store.Entry, error) {
	next := 0
	var kept []int // the places of the entries that are no session, in order
	for id, n := range order {
		next = max(next, n+1)
		if strings.HasPrefix(id, "|") {
			kept = append(kept, n)
		}
	}
	slices.Sort(kept)
	head := doc
	head.Agents = []Session{}
	out := []store.Entry{{}}
	seen := map[string]bool{}
	for i := range doc.Agents {
		s := doc.Agents[i]
		id := s.SessionID
		var n int
		if !s.IsSession() || id == "" || strings.HasPrefix(id, "|") || seen[id] {
			if len(kept) > 0 {
				n, kept = kept[0], kept[1:]
			} else {
				n, next = next, next+1
			}
			id = "|" + strconv.Itoa(n)
		} else {
			seen[id] = true
			var ok bool
			if n, ok = order[id]; !ok {
				n, next = next, next+1
			}
		}
		var b bytes.Buffer
		fmt.Fprintf(&b, "#%d\n", n)
		normalizeLists(&s)
		if err := encodeFrontmatter(&b, Document{Version: doc.Version, Agents: []Session{s}}); err != nil {
			return nil, err
		}
		out = append(out, store.Entry{ID: id, Data: b.Bytes()})
	}
	var b bytes.Buffer
	if err := encodeFrontmatter(&b, head); err != nil {
		return nil, err
	}
	out[0].Data = b.Bytes()
	return out, nil
}
