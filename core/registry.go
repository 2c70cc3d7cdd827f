package core

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/agentlock/agentlock/store"
)

// Session statuses used by agentlock. Other values written by other tools
// are kept as they are.
const (
	StatusWorking  = "OnWorking"
	StatusFinished = "Finished"
	// StatusIdle is shown, never stored: a working session that holds no
	// lock and has renewed nothing within the timeout shows as idle in the
	// table and in agentlock show, while the frontmatter keeps OnWorking,
	// the value agent-registry 0.2 reads.
	StatusIdle = "idle"
)

// RegistryVersion is the version key agentlock writes in a registry it
// creates. A registry's own version is kept as found.
const RegistryVersion = "1.0"

// Errors of the registry.
var (
	// ErrNoSession: the session is not in the registry.
	ErrNoSession = errors.New("no such session")
	// ErrCorruptRegistry: registry.md cannot be parsed; it is never overwritten.
	ErrCorruptRegistry = errors.New("corrupt registry")
)

// Todo is a session's task list, split as agent-registry 0.2 does.
type Todo struct {
	Past    []string `json:"past"`
	Present []string `json:"present"`
	Future  []string `json:"future"`
	foreign
}

// Session is one agent's entry in registry.md, with the keys and the types
// of agent-registry 0.2. Keys that agentlock does not know, and values of a
// type it cannot convert, are kept as found (see UnmarshalYAML) and are not
// part of the JSON form.
type Session struct {
	SessionID string `json:"session_id"`
	Provider  string `json:"provider"`
	AIVersion string `json:"ai_version"`
	// StartedAt is when the session registered: RFC 3339 with offset as
	// agentlock writes it, "YYYY-MM-DD HH:MM" (Rome time) as 0.2 does.
	StartedAt  string   `json:"started_at"`
	WorkingOn  string   `json:"working_on"`
	Todo       Todo     `json:"todo"`
	Space      []string `json:"space"`
	DoNotTouch []string `json:"do_not_touch"`
	Status     string   `json:"status"`
	// Issues is free text, as in 0.2.
	Issues string `json:"issues"`
	// Handoff is the file holding notes for the next agent; a new one
	// replaces it, as in 0.2.
	Handoff string `json:"handoff"`
	// Worktree and Branch name the git worktree (its root) and branch the
	// session works in, in a registry shared by every worktree of a
	// repository (agentlock init --scope repository); empty elsewhere.
	// agent-registry 0.2 keeps them as unknown keys.
	Worktree string `json:"worktree,omitempty"`
	Branch   string `json:"branch,omitempty"`
	// Parent is, for a sub-agent's session ("<parent>/<sub-agent id>",
	// ChildSession), the session it works for; empty for a top-level one.
	// agent-registry 0.2 keeps it as an unknown key.
	Parent string `json:"parent,omitempty"`
	foreign
	// opaque is an entry of the agents list that is not a mapping, kept as
	// found; such an entry is no session.
	opaque *yaml.Node
}

// IsSession reports whether the entry is a session: an entry of the agents
// list that is not a mapping is kept as found, but is none.
func (s *Session) IsSession() bool { return s.opaque == nil }

// Document is the frontmatter of registry.md: its only authoritative data.
type Document struct {
	// Version is the version key as found ("1.0" when agentlock creates
	// the registry); agentlock never changes it.
	Version     string    `json:"version"`
	LastUpdated string    `json:"last_updated"`
	Agents      []Session `json:"agents"`
	foreign
	// idle are the ids of the sessions the table shows as idle; a view,
	// never written to the frontmatter.
	idle map[string]bool
}

// Find returns the session with id, or false.
func (d *Document) Find(id string) (*Session, bool) {
	for i := range d.Agents {
		if d.Agents[i].IsSession() && d.Agents[i].SessionID == id {
			return &d.Agents[i], true
		}
	}
	return nil, false
}

// Registry reads and writes the registry document (registry.md). Every
// write is one section of the document store, which no other write can
// interleave with: read the current document → change → render → store.
// Reading inside the section that writes means no update is lost. A
// document that cannot be parsed is never overwritten.
type Registry struct {
	doc      store.Document
	protocol func() (string, error)
	clock    func() time.Time
	idle     func(context.Context, []Session) map[string]bool
}

// RegistryOptions configure a Registry.
type RegistryOptions struct {
	// Protocol renders the protocol block written between the frontmatter
	// and the table. It is called only when the registry is written, so
	// that reads and the lock commands' registry checks do not pay for it.
	Protocol func() (string, error)
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Idle, when set, is called on every write with the sessions about to
	// be written and returns the ids of those the table shows as idle
	// (StatusIdle). It runs inside the registry's write section: it may
	// read lock files, never the registry.
	Idle func(context.Context, []Session) map[string]bool
}

// NewRegistry returns the registry kept in doc. Package workspace gives the
// registry of a project.
func NewRegistry(doc store.Document, opts RegistryOptions) *Registry {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Protocol == nil {
		opts.Protocol = func() (string, error) { return "", nil }
	}
	r := &Registry{doc: doc, protocol: opts.Protocol, clock: opts.Now, idle: opts.Idle}
	if entries, ok := doc.(store.EntryDocument); ok {
		r.doc = entryDocument{EntryDocument: entries, r: r}
	}
	return r
}

// Where names the registry for people: its file, with the file store.
func (r *Registry) Where() string { return r.doc.Where() }

func (r *Registry) now() time.Time { return r.clock() }

// Load reads the registry. A missing document is an empty registry.
// Writers replace the document whole, so a reader always sees one version.
func (r *Registry) Load(ctx context.Context) (Document, error) {
	data, err := r.doc.Read(ctx)
	if err != nil {
		return Document{}, fmt.Errorf("read registry: %w", err)
	}
	return parseRegistry(r.Where(), data)
}

// Create writes the empty registry, protocol block included, when there is
// none yet; an existing one is kept as it is. It reports whether it wrote.
func (r *Registry) Create(ctx context.Context) (bool, error) {
	created := false
	err := r.doc.Edit(ctx, func(old []byte) ([]byte, error) {
		if old != nil {
			return nil, nil
		}
		protocol, err := r.protocol()
		if err != nil {
			return nil, err
		}
		created = true
		return renderRegistry(Document{Version: RegistryVersion, Agents: []Session{}}, protocol)
	})
	if err != nil {
		return false, fmt.Errorf("create registry: %w", err)
	}
	return created, nil
}

// Register adds s, or replaces the entry with the same session id, with
// status OnWorking and the current time as its start. The keys of a
// replaced entry that agentlock does not know are kept, and so is its
// do_not_touch when s has none (nil): re-registering does not forget the
// paths the session holds. A caller that knows them (package workspace
// reads them from the lock records) passes them instead.
func (r *Registry) Register(ctx context.Context, s Session) (Session, error) {
	if err := ValidateSession(s.SessionID); err != nil {
		return Session{}, err
	}
	s.Status = StatusWorking
	s.StartedAt = r.now().Format(time.RFC3339)
	s.foreign, s.Todo.foreign, s.opaque = foreign{}, foreign{}, nil
	given := s.DoNotTouch
	err := r.edit(ctx, func(d *Document) error {
		s.DoNotTouch = given // the store may run this again (compare-and-swap)
		if old, ok := d.Find(s.SessionID); ok {
			s.extra, s.Todo.extra = old.extra, old.Todo.extra
			if s.DoNotTouch == nil {
				s.DoNotTouch = old.DoNotTouch
			}
			*old = s
			return nil
		}
		d.Agents = append(d.Agents, s)
		return nil
	})
	if err != nil {
		return Session{}, fmt.Errorf("register %s: %w", s.SessionID, err)
	}
	return s, nil
}

// Start registers s as working, once, in one write section (the registry
// is read inside it, so that two starts of one session cannot both
// register it): an entry already working is left as it is; a finished one
// is marked working again, with s's do_not_touch when s has one; a new one
// is registered as Register does. It reports whether anything changed.
func (r *Registry) Start(ctx context.Context, s Session) (bool, error) {
	_, changed, err := r.StartWith(ctx, s, nil)
	return changed, err
}

// StartWith is Start where an entry already there, working or not, is
// changed by update (when not nil) and marked working, keeping its start
// and its do_not_touch: a registration that says what the session works
// on now. It returns the entry as written and whether it was changed (an
// update reports a change even when it changed nothing).
func (r *Registry) StartWith(ctx context.Context, s Session, update func(old *Session)) (Session, bool, error) {
	if err := ValidateSession(s.SessionID); err != nil {
		return Session{}, false, err
	}
	s.Status = StatusWorking
	s.StartedAt = r.now().Format(time.RFC3339)
	s.foreign, s.Todo.foreign, s.opaque = foreign{}, foreign{}, nil
	changed := false
	var out Session
	err := r.edit(ctx, func(d *Document) error {
		changed = false // the store may run this again (compare-and-swap)
		old, ok := d.Find(s.SessionID)
		switch {
		case ok && update != nil:
			update(old)
			old.Status, changed = StatusWorking, true // a change that changes nothing writes nothing (edit)
		case ok && old.Status == StatusWorking:
		case ok:
			old.Status, changed = StatusWorking, true
			if s.DoNotTouch != nil {
				old.DoNotTouch = slices.Clone(s.DoNotTouch)
			}
		default:
			d.Agents, changed = append(d.Agents, s), true
			out = s
			return nil
		}
		out = *old
		return nil
	})
	if err != nil {
		return Session{}, false, fmt.Errorf("start %s: %w", s.SessionID, err)
	}
	return out, changed, nil
}

// Update applies change to the session id inside the critical section and
// returns the result. It fails with ErrNoSession, changing nothing, when
// the session is not registered.
func (r *Registry) Update(ctx context.Context, id string, change func(*Session)) (Session, error) {
	var out Session
	err := r.edit(ctx, func(d *Document) error {
		s, ok := d.Find(id)
		if !ok {
			return fmt.Errorf("%w %s in %s", ErrNoSession, id, r.Where())
		}
		change(s)
		out = *s
		return nil
	})
	switch {
	case errors.Is(err, ErrNoSession):
		return Session{}, err // it names the session and the registry
	case err != nil:
		return Session{}, fmt.Errorf("session %s: %w", id, err)
	}
	return out, nil
}

// Finish marks the session Finished and empties its do_not_touch. The
// caller releases the session's locks (Locker.ReleaseSession; package
// workspace does both): the lock records stay authoritative, the registry
// is their readable view.
func (r *Registry) Finish(ctx context.Context, id string) (Session, error) {
	out, err := r.Update(ctx, id, func(s *Session) {
		s.Status = StatusFinished
		s.DoNotTouch = []string{}
	})
	if err == nil {
		err = r.finishChildren(ctx, id)
	}
	return out, err
}

// finishChildren marks Finished the working sessions of the sub-agents of
// id (their entries say parent: id), in one write section: a sub-agent
// with no end event of its own (Copilot's) ends with its session.
func (r *Registry) finishChildren(ctx context.Context, id string) error {
	data, err := r.doc.Read(ctx)
	if err != nil || data == nil || !bytes.Contains(data, []byte(id+SubAgentSeparator)) {
		return err // no entry can name it as parent: nothing to write
	}
	err = r.edit(ctx, func(d *Document) error {
		changed := false
		for i := range d.Agents {
			c := &d.Agents[i]
			if c.IsSession() && c.Parent == id && c.Status != StatusFinished {
				c.Status, c.DoNotTouch, changed = StatusFinished, []string{}, true
			}
		}
		if !changed {
			return errUnchanged
		}
		return nil
	})
	if errors.Is(err, errUnchanged) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("finish the sub-agents of %s: %w", id, err)
	}
	return nil
}

// AddHandoffRef records ref (a path to notes for the next agent) as the
// session's handoff, replacing the previous one, as agent-registry 0.2's
// add_handoff_ref does.
func (r *Registry) AddHandoffRef(ctx context.Context, id, ref string) (Session, error) {
	return r.Update(ctx, id, func(s *Session) { s.Handoff = ref })
}

// appendMissing appends the items not yet in list, keeping order.
func appendMissing(list []string, items ...string) []string {
	for _, it := range items {
		found := false
		for _, have := range list {
			if have == it {
				found = true
				break
			}
		}
		if !found {
			list = append(list, it)
		}
	}
	return list
}

// removeItems returns list without items.
func removeItems(list []string, items ...string) []string {
	out := []string{}
	for _, have := range list {
		keep := true
		for _, it := range items {
			if have == it {
				keep = false
				break
			}
		}
		if keep {
			out = append(out, have)
		}
	}
	return out
}

// HoldPaths adds paths to the session's do_not_touch (after an acquire).
// It reports false, changing nothing, when the session is not registered
// or the registry does not exist yet.
func (r *Registry) HoldPaths(ctx context.Context, id string, paths ...string) (bool, error) {
	return r.changeIfRegistered(ctx, id, func(s *Session) { s.DoNotTouch = appendMissing(s.DoNotTouch, paths...) })
}

// HoldChild is HoldPaths for the session of a sub-agent, child (its id,
// its Parent), that may not be registered yet: a sub-agent whose CLI
// announced no start (or whose start hook did not run) is registered on
// its first lock, under its parent — working, its provider, AI version
// and place those of the parent's entry — with paths as its do_not_touch.
// In the same write, the paths of from (a previous owner → its paths: a
// stale owner, or the parent whose hooks' locks the sub-agent took) leave
// that owner's do_not_touch. It reports whether the registry changed.
// Nothing is written where there is no registry yet.
func (r *Registry) HoldChild(ctx context.Context, child Session, paths []string, from map[string][]string) (bool, error) {
	if err := ValidateSession(child.SessionID); err != nil {
		return false, err
	}
	data, err := r.doc.Read(ctx)
	if err == nil && data == nil {
		return false, nil
	}
	err = r.edit(ctx, func(d *Document) error {
		s, ok := d.Find(child.SessionID)
		if !ok {
			c := child
			c.foreign, c.Todo.foreign, c.opaque = foreign{}, foreign{}, nil
			c.Status, c.StartedAt = StatusWorking, r.now().Format(time.RFC3339)
			if p, ok := d.Find(child.Parent); ok {
				c.Provider, c.AIVersion, c.Worktree, c.Branch = p.Provider, p.AIVersion, p.Worktree, p.Branch
			}
			d.Agents = append(d.Agents, c)
			s = &d.Agents[len(d.Agents)-1]
		}
		s.DoNotTouch = appendMissing(s.DoNotTouch, paths...)
		for prev, gone := range from {
			if p, ok := d.Find(prev); ok && prev != child.SessionID {
				p.DoNotTouch = removeItems(p.DoNotTouch, gone...)
			}
		}
		return nil
	})
	if err != nil {
		return false, fmt.Errorf("hold paths for the sub-agent %s: %w", child.SessionID, err)
	}
	return true, nil
}

// DropPaths removes paths from the session's do_not_touch (after a
// release), like HoldPaths.
func (r *Registry) DropPaths(ctx context.Context, id string, paths ...string) (bool, error) {
	return r.changeIfRegistered(ctx, id, func(s *Session) { s.DoNotTouch = removeItems(s.DoNotTouch, paths...) })
}

// TakeOver is HoldPaths after an acquire that took over stale locks: in
// the same write, each path of from (previous owner → paths) leaves that
// owner's do_not_touch, so that Do Not Touch keeps mirroring the locks. It
// reports whether any session was changed.
func (r *Registry) TakeOver(ctx context.Context, id string, paths []string, from map[string][]string) (bool, error) {
	data, err := r.doc.Read(ctx)
	if err == nil && data == nil {
		return false, nil
	}
	changed := false
	err = r.edit(ctx, func(d *Document) error {
		changed = false // the store may run this again (compare-and-swap)
		if s, ok := d.Find(id); ok {
			s.DoNotTouch, changed = appendMissing(s.DoNotTouch, paths...), true
		}
		for prev, gone := range from {
			if s, ok := d.Find(prev); ok && prev != id {
				s.DoNotTouch, changed = removeItems(s.DoNotTouch, gone...), true
			}
		}
		if !changed {
			return errUnchanged
		}
		return nil
	})
	if errors.Is(err, errUnchanged) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("take over in the registry: %w", err)
	}
	return true, nil
}

// errUnchanged ends a write section that has nothing to write.
var errUnchanged = errors.New("registry unchanged")

// changeIfRegistered applies change, which may only change the session's
// do_not_touch, to the session id when the registry has it.
func (r *Registry) changeIfRegistered(ctx context.Context, id string, change func(*Session)) (bool, error) {
	// Every acquire and release comes here: skip the locked parse and
	// rewrite when there is no document. A document is parsed even when
	// the id does not appear in it: one that does not parse must make the
	// caller warn (the lock commands carry on with a warning), not pass
	// for a registry without the session.
	data, err := r.doc.Read(ctx)
	if err == nil && data == nil {
		return false, nil
	}
	// Nor when the version just read does not have the session (its id
	// appears only in a path, say), or already says what the change would
	// say (an acquire of a path the session lists, the pre-edit hook on a
	// file it holds): the locked section would parse again, render twice
	// and write nothing. The registry is the locks' view, and a change
	// racing with this read is one the locked section could have seen
	// before it as well.
	if err == nil {
		switch registered, same, ok := unchanged(r.Where(), data, id, change); {
		case ok && !registered:
			return false, nil
		case ok && same:
			return true, nil
		}
	}
	_, err = r.Update(ctx, id, change)
	if errors.Is(err, ErrNoSession) {
		return false, nil
	}
	return err == nil, err
}

// unchanged reads the registry content data: whether it has the session
// id, and whether change, which may only change the session's
// do_not_touch (HoldPaths, DropPaths), leaves it as it is. ok is false
// when data cannot be parsed (the locked section reports it).
func unchanged(where string, data []byte, id string, change func(*Session)) (registered, same, ok bool) {
	doc, err := parseRegistry(where, data)
	if err != nil {
		return false, false, false
	}
	s, found := doc.Find(id)
	if !found {
		return false, false, true
	}
	before := slices.Clone(s.DoNotTouch)
	change(s)
	return true, (before == nil) == (s.DoNotTouch == nil) && slices.Equal(before, s.DoNotTouch), true
}

// edit runs one write section on the registry; see Registry. A change that
// changes nothing writes nothing: an agent re-acquiring a path it already
// lists, or a pre-edit hook on a file it holds, costs no registry write.
func (r *Registry) edit(ctx context.Context, change func(*Document) error) error {
	return r.doc.Edit(ctx, func(old []byte) ([]byte, error) {
		doc, err := parseRegistry(r.Where(), old)
		if err != nil {
			return nil, err
		}
		protocol, err := r.protocol()
		if err != nil {
			return nil, err
		}
		// The document as it was, rendered the way it would be written.
		// Rendering normalises (lists, the protocol block), so a document
		// whose sessions did not change renders the same before and after.
		before, err := renderRegistry(doc, protocol)
		if err != nil {
			return nil, err
		}
		if err := change(&doc); err != nil {
			return nil, err
		}
		after, err := renderRegistry(doc, protocol)
		if err != nil {
			return nil, err
		}
		if old != nil && bytes.Equal(before, after) {
			return nil, nil
		}
		doc.LastUpdated = r.now().Format(time.RFC3339)
		if r.idle != nil {
			doc.idle = r.idle(ctx, doc.Agents)
		}
		return renderRegistry(doc, protocol)
	})
}

// parseRegistry reads the frontmatter of a registry.md. The protocol block
// and the table are views and are ignored. A UTF-8 byte order mark and CRLF
// line ends are accepted (and not written back). Empty content is an empty
// registry.
func parseRegistry(path string, data []byte) (Document, error) {
	corrupt := func(reason string) error {
		return fmt.Errorf("%s: %w: %s; fix the YAML frontmatter by hand (nothing was changed)", path, ErrCorruptRegistry, reason)
	}
	text := strings.TrimPrefix(string(data), "\ufeff")
	text = strings.ReplaceAll(text, "\r\n", "\n")
	if strings.TrimSpace(text) == "" {
		return Document{Version: RegistryVersion, Agents: []Session{}}, nil
	}
	front, ok := frontmatterOf(text)
	if !ok {
		return Document{}, corrupt("it does not start with a YAML frontmatter between two '---' lines")
	}
	doc, err := decodeFrontmatter(front)
	if err != nil {
		return Document{}, corrupt(err.Error())
	}
	return doc, nil
}

// frontmatterOf returns the text between the first line, "---", and the
// next "---" line (either may end in spaces, as agent-registry 0.2's reader
// allows), with its final line break.
func frontmatterOf(text string) (string, bool) {
	first, rest, ok := strings.Cut(text, "\n")
	if !ok || !isFence(first) {
		return "", false
	}
	for i := 0; i <= len(rest); {
		end := strings.IndexByte(rest[i:], '\n')
		line := rest[i:]
		if end >= 0 {
			line = rest[i : i+end]
		}
		if isFence(line) {
			return rest[:i], true
		}
		if end < 0 {
			break
		}
		i += end + 1
	}
	return "", false
}

func isFence(line string) bool {
	return strings.TrimRight(line, " \t") == "---"
}

// renderRegistry writes the whole registry.md: frontmatter, protocol block,
// table.
func renderRegistry(doc Document, protocol string) ([]byte, error) {
	for i := range doc.Agents {
		normalizeLists(&doc.Agents[i])
	}
	var b bytes.Buffer
	b.WriteString("---\n")
	if err := encodeFrontmatter(&b, doc); err != nil {
		return nil, err
	}
	b.WriteString("---\n\n")
	b.WriteString(protocol)
	b.WriteString("\n\n")
	writeTable(&b, doc)
	return b.Bytes(), nil
}

// normalizeLists makes nil lists empty, so that the YAML says [] as
// agent-registry does, not null.
func normalizeLists(s *Session) {
	for _, l := range []*[]string{&s.Todo.Past, &s.Todo.Present, &s.Todo.Future, &s.Space, &s.DoNotTouch} {
		if *l == nil {
			*l = []string{}
		}
	}
}

// tableHeader is the header of agent-registry 0.2's table. 0.2 calls the
// fourth column "Started At (Rome)"; agentlock writes times with their
// offset.
const tableHeader = "| Session ID | Provider | AI Version | Started At | Working On | To Do Past | To Do Present | To Do Future | Space | Do Not Touch | Status | Issues | Handoff |\n" +
	"|---|---|---|---|---|---|---|---|---|---|---|---|---|\n"

// writeTable renders the sessions as agent-registry 0.2's markdown table:
// its thirteen columns, one row per session.
func writeTable(b *bytes.Buffer, doc Document) {
	b.WriteString(tableHeader)
	for _, s := range doc.Agents {
		if !s.IsSession() {
			continue
		}
		b.WriteString("| ")
		for i, v := range []string{s.SessionID, s.Provider, s.AIVersion, s.StartedAt, s.WorkingOn} {
			if i > 0 {
				b.WriteString(" | ")
			}
			writeCell(b, v)
		}
		for _, list := range [][]string{s.Todo.Past, s.Todo.Present, s.Todo.Future, s.MarkedSpace(), s.DoNotTouch} {
			b.WriteString(" | ")
			writeCells(b, list)
		}
		for _, v := range []string{doc.shownStatus(s), s.Issues, s.Handoff} {
			b.WriteString(" | ")
			writeCell(b, v)
		}
		b.WriteString(" |\n")
	}
}

// HeldArea reports whether the space entry entry is held by s as an area
// lock: an area path (ending in "/", as register --claim writes it) that
// s's do_not_touch lists, as acquiring the area made it.
func (s *Session) HeldArea(entry string) bool {
	return store.IsArea(entry) && slices.Contains(s.DoNotTouch, entry)
}

// MarkedSpace is s's space as tables show it: an entry held as an area
// followed by " (area)". The frontmatter keeps the entries themselves.
func (s *Session) MarkedSpace() []string {
	out, cloned := s.Space, false
	for i, e := range s.Space {
		if s.HeldArea(e) {
			if !cloned {
				out, cloned = slices.Clone(s.Space), true
			}
			out[i] = e + " " + AreaMark
		}
	}
	return out
}

// AreaMark follows a space entry held as an area in tables.
const AreaMark = "(area)"

// shownStatus is the status the table shows for s: StatusIdle for a
// working session the registry's Idle option named, else its own.
func (d *Document) shownStatus(s Session) string {
	if s.Status == StatusWorking && d.idle[s.SessionID] {
		return StatusIdle
	}
	return s.Status
}

// Started is when the session registered, read from StartedAt in either
// of its forms (RFC 3339, or agent-registry 0.2's "YYYY-MM-DD HH:MM" in
// Rome time); false when it cannot be read.
func (s *Session) Started() (time.Time, bool) {
	if t, err := time.Parse(time.RFC3339, s.StartedAt); err == nil {
		return t, true
	}
	rome, err := time.LoadLocation("Europe/Rome")
	if err != nil {
		return time.Time{}, false
	}
	t, err := time.ParseInLocation("2006-01-02 15:04", s.StartedAt, rome)
	return t, err == nil
}

// cell neutralises what would break a table row: '|' is escaped, line
// breaks become <br>. The frontmatter keeps the exact values.
func cell(v string) string {
	plain := true
	for i := 0; i < len(v) && plain; i++ {
		switch v[i] {
		case '\\', '|', '\r', '\n':
			plain = false
		}
	}
	if plain {
		return v
	}
	v = strings.ReplaceAll(v, `\`, `\\`)
	v = strings.ReplaceAll(v, "|", `\|`)
	v = strings.ReplaceAll(v, "\r\n", "<br>")
	v = strings.ReplaceAll(v, "\n", "<br>")
	v = strings.ReplaceAll(v, "\r", "<br>")
	return v
}

// writeCell writes cell(v).
func writeCell(b *bytes.Buffer, v string) { b.WriteString(cell(v)) }

// writeCells writes a list as one cell, items separated by ", " as in
// agent-registry 0.2's table.
func writeCells(b *bytes.Buffer, list []string) {
	for i, v := range list {
		if i > 0 {
			b.WriteString(", ")
		}
		writeCell(b, v)
	}
}
