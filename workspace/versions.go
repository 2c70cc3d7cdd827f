package workspace

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/agentlock/agentlock/core"
	"github.com/agentlock/agentlock/internal/sys/filedigest"
	"github.com/agentlock/agentlock/internal/sys/plainfile"
	"github.com/agentlock/agentlock/store"
)

// Read versions, the session policy (docs/read-versions.md): what a session
// read of a file is recorded as a version of it (See); its own edits make
// the new content its version and are recorded as the file's last change
// (Wrote); a lock taken by a command is recorded as a change the holder
// may have made (Held); and before a session writes a file, its view of it
// is judged (Views): stale when the file differs from its version, when
// another session held the file's lock as it was read, when the record is
// damaged, or — for a whole-file write of a file it never read — when
// another session changed the file since this one began.

// StaleMode is the setting of the stale-write check: what a write based on
// a stale view gets.
type StaleMode string

// The stale-write modes.
const (
	// StaleDeny refuses the write (the default).
	StaleDeny StaleMode = "deny"
	// StaleWarn lets it through with a warning for the model.
	StaleWarn StaleMode = "warn"
	// StaleOff checks nothing; versions are still recorded.
	StaleOff StaleMode = "off"
)

// StaleFile is the file of a home that records the project's stale-write
// mode (agentlock init --stale-writes), read when AGENTLOCK_STALE_WRITES
// is unset.
const StaleFile = "stale-writes"

// ParseStaleMode reads a stale-write mode; what names where it came from.
// Empty is "" with no error: not set.
func ParseStaleMode(what, s string) (StaleMode, error) {
	switch m := StaleMode(strings.TrimSpace(strings.ToLower(s))); m {
	case "", StaleDeny, StaleWarn, StaleOff:
		return m, nil
	}
	return "", fmt.Errorf("%s=%q is invalid: want deny, warn or off", what, strings.TrimSpace(s))
}

// StaleMode returns the stale-write mode of the workspace and where it
// came from: AGENTLOCK_STALE_WRITES (Settings.StaleWrites), else the
// project's StaleFile, else the default, deny. A project file that cannot
// be used is an error, with deny standing in.
func (w *Workspace) StaleMode() (StaleMode, string, error) {
	if w.settings.StaleWrites != "" {
		return w.settings.StaleWrites, "AGENTLOCK_STALE_WRITES", nil
	}
	file := filepath.Join(w.Home, StaleFile)
	data, err := plainfile.ReadFile(file)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return StaleDeny, "default", nil
	case err != nil:
		return StaleDeny, file, fmt.Errorf("the project's stale-write mode: %w", err)
	}
	m, err := ParseStaleMode(file, string(data))
	if err != nil || m == "" {
		return StaleDeny, file, fmt.Errorf("the project's stale-write mode: %s holds %q, not deny, warn or off; deny stands in", file, strings.TrimSpace(string(data)))
	}
	return m, file, nil
}

// SetStaleMode records the project's stale-write mode in its home; it
// reports whether anything changed.
func (w *Workspace) SetStaleMode(m StaleMode) (bool, error) {
	file := filepath.Join(w.Home, StaleFile)
	content := string(m) + "\n"
	if old, err := plainfile.ReadFile(file); err == nil && string(old) == content {
		return false, nil
	}
	if err := os.MkdirAll(w.Home, 0o700); err != nil {
		return false, fmt.Errorf("stale-write mode: %w", err)
	}
	if err := os.WriteFile(file, []byte(content), 0o644); err != nil {
		return false, fmt.Errorf("stale-write mode: %w", err)
	}
	return true, nil
}

// versions returns the read versions of the workspace's lock store.
func (w *Workspace) versions() (store.Versions, error) {
	return versionsOf(w.lockStore())
}

// keptVersions is versions for a record that a store keeping no read
// versions simply skips: nil and no error for such a store.
func (w *Workspace) keptVersions() (store.Versions, error) {
	v, err := w.versions()
	if errors.Is(err, ErrNoVersions) {
		return nil, nil
	}
	return v, err
}

func (w *Workspace) now() time.Time {
	if w.settings.Now != nil {
		return w.settings.Now()
	}
	return time.Now()
}

// Begin records when session began (its session start), unless known.
func (w *Workspace) Begin(ctx context.Context, session string) error {
	v, err := w.versions()
	if err != nil {
		return err
	}
	return v.See(ctx, session, w.now(), nil)
}

// DamagedVersions lists the damaged version and change records of the
// workspace's store (agentlock doctor).
func (w *Workspace) DamagedVersions(ctx context.Context) ([]*store.DamagedError, error) {
	v, err := w.versions()
	if err != nil {
		return nil, err
	}
	return v.Damaged(ctx)
}

// Forget drops the read versions session keeps in this workspace (its
// finish).
func (w *Workspace) Forget(ctx context.Context, session string) error {
	v, err := w.keptVersions()
	if v == nil || err != nil {
		return err
	}
	return v.Forget(ctx, session)
}

// Seen is one file as a session saw it: its version, and what could not be
// read of it.
type Seen struct {
	Path    string
	Version store.Version
	// Err says why the file could not be digested (nothing recorded).
	Err error
}

// SettleWindow is how long, by default (AGENTLOCK_SETTLE_WINDOW sets it),
// before a read's after-tool hook started a change by another session
// makes the read unsettled. A CLI reports a read to its hook after the
// read, so the content the hook digests may be newer than what the model
// read: a change made in between (another session that took the lock,
// wrote and released it in those milliseconds) would otherwise pass for
// what the model saw. Within the window the version is unsettled (the
// next write is refused once, with the file reserved for the reader, whose
// read again is then settled); a CLI that runs its after-tool hook later
// than this after the read could miss such a change
// (docs/read-versions.md).
const SettleWindow = time.Second

// See records that session read the files of paths (real paths whose
// locks live in this workspace), before the time before (when the hook
// that reports the reads started; zero for now): each file's digest now,
// and whether the version is unsettled (store.Version.Held) — another
// session holds its lock, or changed it less than SettleWindow before
// before, unless session holds the lock itself (then nobody else could
// change it since it took the lock). A file that cannot be read is not
// recorded, its Seen saying why.
func (w *Workspace) See(ctx context.Context, session string, paths []string, before time.Time) ([]Seen, error) {
	v, err := w.versions()
	if err != nil {
		return nil, err
	}
	now := w.now()
	if before.IsZero() {
		before = now
	}
	out := make([]Seen, 0, len(paths))
	var record []store.Version
	for _, p := range paths {
		sum, err := filedigest.Of(p)
		if err != nil {
			out = append(out, Seen{Path: p, Err: err})
			continue
		}
		ver := store.Version{Path: p, Digest: sum.Digest, Stat: statField(sum, now), At: now}
		ver.Held, err = w.unsettledBy(ctx, v, session, p, before)
		if err != nil {
			// Who may have changed it cannot be told: unsettled, so that
			// the write is refused until a read that can tell.
			ver.Held = "(unknown: " + store.Clip(err.Error()) + ")"
		}
		out = append(out, Seen{Path: p, Version: ver})
		record = append(record, ver)
	}
	if len(record) == 0 {
		return out, nil
	}
	return out, v.See(ctx, session, now, record)
}

// unsettledBy names the session that may have changed path between
// session's read of it and before (see See), "" when none.
func (w *Workspace) unsettledBy(ctx context.Context, v store.Versions, session, path string, before time.Time) (string, error) {
	c, err := w.Locker().CheckAndWarn(ctx, path, session)
	switch {
	case err != nil:
		return "", err
	case !c.OK:
		return c.State.Owner, nil
	case c.State.Locked() && c.State.Owner == session:
		return "", nil
	}
	changes, _, err := v.Changed(ctx, []store.Key{{Path: path}})
	if err != nil {
		return "", err
	}
	window := w.settings.SettleWindow
	if window <= 0 {
		window = SettleWindow
	}
	for _, ch := range changes {
		if ch.Session != session && ch.At.After(before.Add(-window)) {
			return ch.Session, nil
		}
	}
	return "", nil
}

// Wrote records session's own edit of the files of paths: the content now
// is its version and the file's last change. A file whose lock another
// session holds is left alone: agentlock let no edit of it through, so what
// changed it was not this session's tool.
func (w *Workspace) Wrote(ctx context.Context, session string, paths []string) ([]Seen, error) {
	v, err := w.versions()
	if err != nil {
		return nil, err
	}
	now := w.now()
	var out []Seen
	var record []store.Version
	var changes []store.Change
	for _, p := range paths {
		if c, err := w.Locker().CheckAndWarn(ctx, p, session); err == nil && !c.OK {
			continue
		}
		sum, err := filedigest.Of(p)
		if err != nil {
			out = append(out, Seen{Path: p, Err: err})
			continue
		}
		ver := store.Version{Path: p, Digest: sum.Digest, Stat: statField(sum, now), At: now}
		out = append(out, Seen{Path: p, Version: ver})
		record = append(record, ver)
		changes = append(changes, store.Change{Path: p, Session: session, At: now, Digest: sum.Digest, Kind: store.ChangeEdit})
	}
	if len(record) == 0 {
		return out, nil
	}
	if err := v.See(ctx, session, now, record); err != nil {
		return out, err
	}
	return out, v.Change(ctx, changes)
}

// Held records that session took the locks of leases by a command (not an
// edit a hook saw): a change it may make by any means while it holds them,
// with each file's digest as it was taken. Only locks newly taken of
// files; areas and renewals are not recorded.
func (w *Workspace) Held(ctx context.Context, session string, leases []core.Lease) error {
	v, err := w.keptVersions()
	if v == nil || err != nil {
		return err
	}
	now := w.now()
	var changes []store.Change
	for _, l := range leases {
		if l.Renewed || store.IsArea(l.Path) {
			continue
		}
		sum, err := filedigest.Of(l.Path)
		digest := sum.Digest
		if err != nil {
			digest = ""
		}
		changes = append(changes, store.Change{Path: l.Path, Session: session, At: now, Digest: digest, Kind: store.ChangeHold})
	}
	if len(changes) == 0 {
		return nil
	}
	return v.Change(ctx, changes)
}

// Freed records that session released the locks of states (the files'
// holds and edits over), for the reads that follow (see See). Areas and
// locks another session held are not recorded.
func (w *Workspace) Freed(ctx context.Context, session string, states []core.State) error {
	v, err := w.keptVersions()
	if v == nil || err != nil {
		return err
	}
	now := w.now()
	var changes []store.Change
	for _, st := range states {
		if st.Path == "" || st.Owner != session || store.IsArea(st.Path) {
			continue
		}
		changes = append(changes, store.Change{Path: st.Path, Session: session, At: now, Kind: store.ChangeRelease})
	}
	if len(changes) == 0 {
		return nil
	}
	return v.Change(ctx, changes)
}

// Why a view is stale.
const (
	// ViewChanged: the file differs from the session's version.
	ViewChanged = "changed"
	// ViewUnsettled: another session held the file's lock when the
	// session read it.
	ViewUnsettled = "unsettled"
	// ViewDamaged: the record of the session's version cannot be read.
	ViewDamaged = "damaged"
	// ViewOverwrite: a whole-file write of a file the session never
	// read, which another session changed since this one began.
	ViewOverwrite = "overwrite"
	// viewOwnEdit: a file changed since the session's version, which an
	// edit of its own was let through after (store.Version.Held is the
	// session): stale only if another session's change is recorded.
	viewOwnEdit = "own edit"
)

// View is the verdict on a session's view of one file it is about to
// write.
type View struct {
	// Path is the real path.
	Path string
	// Read is the session's version of the file; nil when it has none.
	Read *store.Version
	// Now is the file's digest now; "" when it was not needed or could
	// not be read.
	Now string
	// Stale is set when a write based on the session's view would lose
	// another's change; Why says why (ViewChanged, ...).
	Stale bool
	Why   string
	// By is the change agentlock knows of that the view misses: who made
	// it or held the file, and when; nil when it knows none (a process
	// outside agentlock, an agent-registry 0.2 agent, a person's editor).
	By *store.Change
	// Damaged is the damaged record of a ViewDamaged verdict.
	Damaged *store.DamagedError
	// Err is set when the view could not be judged (the file cannot be
	// read, the store failed): a write must not go on as if it were fresh.
	Err error
	// stat is the status field of a version of Now (statField).
	stat string
}

// Views judges session's views of the files of paths (real paths whose
// locks live in this workspace) before it writes them; whole lists the
// paths its tool writes whole (a whole-file write, a patch's Add File or
// Delete File), for which a file never read is judged too (see
// ViewOverwrite). A failure to read the session's versions is an error;
// a file that cannot be digested is the Err of its view.
func (w *Workspace) Views(ctx context.Context, session string, paths, whole []string) ([]View, error) {
	v, err := w.versions()
	if errors.Is(err, ErrNoVersions) {
		return make([]View, 0), nil
	}
	if err != nil {
		return nil, err
	}
	keys := make([]store.Key, len(paths))
	for i, p := range paths {
		keys[i] = store.Key{Path: p}
	}
	view, err := v.Seen(ctx, session, keys)
	if err != nil {
		return nil, err
	}
	return w.judge(ctx, v, session, view, paths, whole)
}

// judge is Views on the session's view of paths as v, their store, gave
// it: each file is digested (its content, never only its status: the
// check's verdict is content-based).
func (w *Workspace) judge(ctx context.Context, v store.Versions, session string, view store.View, paths, whole []string) ([]View, error) {
	before := w.now()
	out := make([]View, len(paths))
	var ask []store.Key
	for i, p := range paths {
		out[i] = View{Path: p}
		ver, read := view.Version(p)
		if read {
			out[i].Read = &ver
		}
		d := view.DamagedFor(p)
		isWhole := slices.Contains(whole, p)
		if d == nil && !read && !isWhole {
			continue // never read, and not written whole: nothing to judge
		}
		sum, err := filedigest.Of(p)
		if err != nil {
			out[i].Err = err
			continue
		}
		out[i].Now, out[i].stat = sum.Digest, statField(sum, before)
		switch {
		case d != nil:
			out[i].Stale, out[i].Why, out[i].Damaged = true, ViewDamaged, d
		case read && ver.Held != "" && ver.Held != session:
			out[i].Stale, out[i].Why = true, ViewUnsettled
		case read && ver.Held == session && ver.Digest != sum.Digest:
			out[i].Why = viewOwnEdit
		case read && ver.Digest != sum.Digest:
			out[i].Stale, out[i].Why = true, ViewChanged
		case !read && sum.Digest != filedigest.Absent:
			out[i].Why = ViewOverwrite // stale only if another session changed it
		default:
			continue
		}
		ask = append(ask, store.Key{Path: p})
	}
	if len(ask) == 0 {
		return out, nil
	}
	changes, damaged, err := v.Changed(ctx, ask)
	if err != nil {
		return nil, err
	}
	for i := range out {
		o := &out[i]
		if o.Why == "" || o.Err != nil {
			continue
		}
		mine := changesOf(changes, o.Path)
		switch o.Why {
		case ViewOverwrite:
			since := view.Since
			o.By = lastOther(mine, session, since, o.Now, true)
			o.Stale = o.By != nil
			if !o.Stale && damagedFor(damaged, o.Path) != nil {
				// What changed the file cannot be read: fail closed.
				o.Stale, o.Why, o.Damaged = true, ViewDamaged, damagedFor(damaged, o.Path)
			}
			if !o.Stale {
				o.Why = ""
			}
		case ViewUnsettled:
			o.By = lastOther(mine, session, time.Time{}, o.Now, false)
			if o.By == nil || o.By.Session != o.Read.Held {
				o.By = &store.Change{Path: o.Path, Session: o.Read.Held, At: o.Read.At, Kind: store.ChangeHold}
			}
		case ViewChanged:
			o.By = lastOther(mine, session, o.Read.At, o.Now, false)
		case viewOwnEdit:
			o.By = lastOther(mine, session, o.Read.At, o.Now, false)
			switch d := damagedFor(damaged, o.Path); {
			case o.By != nil:
				o.Stale, o.Why = true, ViewChanged
			case d != nil:
				// Who changed it cannot be read: fail closed.
				o.Stale, o.Why, o.Damaged = true, ViewDamaged, d
			default:
				o.Why = ""
			}
		}
	}
	return out, nil
}

// lastOther returns, among the changes of one file, the one another
// session made after since (any time when since is zero) that explains its
// content now: an edit that left it as it is now, else a hold of the lock
// during which it changed (its digest at the hold differs), else for
// ViewChanged any later edit; nil when none.
func lastOther(cs []store.Change, session string, since time.Time, now string, overwrite bool) *store.Change {
	var best *store.Change
	rank := func(c store.Change) int {
		switch {
		case c.Kind == store.ChangeEdit && c.Digest == now:
			return 3
		case c.Kind == store.ChangeHold && c.Digest != now:
			return 2
		case c.Kind == store.ChangeEdit && !overwrite:
			return 1
		}
		return 0
	}
	for i := range cs {
		c := cs[i]
		if c.Session == session || !since.IsZero() && !c.At.After(since) || rank(c) == 0 {
			continue
		}
		if best == nil || rank(c) > rank(*best) || rank(c) == rank(*best) && c.At.After(best.At) {
			best = &cs[i]
		}
	}
	return best
}

func changesOf(cs []store.Change, path string) []store.Change {
	var out []store.Change
	for _, c := range cs {
		if c.Path == path {
			out = append(out, c)
		}
	}
	return out
}

func damagedFor(ds []*store.DamagedError, path string) *store.DamagedError {
	for _, d := range ds {
		if d.Path == path {
			return d
		}
	}
	return nil
}

// Editing records, after the pre-edit hook judged session's views and let
// its edit through, that its own tool is about to change each file it has
// a version of (store.Version.Held is then the session): a change found
// later is its own unless another session's is recorded. The after-tool
// hook, where the CLI runs one for the edit, records the new content as
// usual (Wrote), which ends it.
func (w *Workspace) Editing(ctx context.Context, session string, views []View) error {
	v, err := w.keptVersions()
	if v == nil || err != nil {
		return err
	}
	now := w.now()
	var record []store.Version
	for _, o := range views {
		if o.Stale || o.Err != nil || o.Read == nil || o.Now == "" || o.Read.Held == session && o.Read.Digest == o.Now {
			continue
		}
		record = append(record, store.Version{Path: o.Path, Digest: o.Now, Stat: o.stat, At: now, Held: session, Told: o.Read.Told})
	}
	if len(record) == 0 {
		return nil
	}
	return v.See(ctx, session, time.Time{}, record)
}

// Settle records, after a refusal for a stale view, the file's content
// now as session's version of it: for an agent whose reads agentlock
// cannot see (Codex reads through its shell), the refusal is the notice
// that the file changed, and the reservation (the lock, the session's)
// keeps it as it is until the session writes it.
func (w *Workspace) Settle(ctx context.Context, session string, views []View) error {
	v, err := w.versions()
	if err != nil {
		return err
	}
	now := w.now()
	var record []store.Version
	for _, o := range views {
		if !o.Stale || o.Err != nil || o.Now == "" {
			continue
		}
		record = append(record, store.Version{Path: o.Path, Digest: o.Now, Stat: o.stat, At: now, Told: o.Now})
	}
	if len(record) == 0 {
		return nil
	}
	return v.See(ctx, session, time.Time{}, record)
}

// Untold returns the files session has read whose content changed since,
// by another session or a process outside agentlock, and that it was not
// told of yet (store.Version.Told), each as the pre-edit hook would judge
// a write of it (Views: ViewChanged, or an unsettled read whose file now
// differs from it, reported as ViewChanged); and records each change as
// told, so that the session is told of it once (the after-tool hook's notice,
// docs/read-versions.md). A read again, or its own edit, makes a new
// version: a later change is told again. Only the versions kept in the
// workspace's own lock space are looked at.
//
// A file whose status is still the one recorded with the content it was
// last digested as (statUnchanged) has nothing to tell and is not
// digested again: a session that read many files pays a status of each
// per tool call, a digest only of those whose status changed. A file
// digested here whose content is still its version's (or the one it was
// told about) gets its status recorded, when it is one that can prove it
// (filedigest.Sum.Racy), so that the next hooks need not digest it. The
// pre-edit check (Views) always digests.
func (w *Workspace) Untold(ctx context.Context, session string) ([]View, error) {
	v, views, err := w.readViews(ctx, session, func(ver store.Version) bool { return !statUnchanged(ver) })
	if err != nil {
		return nil, err
	}
	var out []View
	var record []store.Version
	for _, o := range views {
		if o.Err != nil || o.Read == nil || o.Now == "" {
			continue
		}
		if o.Read.Digest == o.Now || o.Read.Told == o.Now {
			if ver, ok := restat(*o.Read, o); ok {
				record = append(record, ver)
			}
			continue
		}
		if !o.Stale {
			continue
		}
		if o.Why == ViewUnsettled {
			// Read as another session held or changed it, and changed
			// since: a change all the same.
			o.Why = ViewChanged
		}
		if o.Why != ViewChanged {
			continue
		}
		out = append(out, o)
		told := *o.Read
		told.Told, told.Stat = o.Now, toldStat(o.stat)
		record = append(record, told)
	}
	if len(record) == 0 {
		return out, nil
	}
	return out, v.See(ctx, session, time.Time{}, record)
}

// HeldViews judges, for each lock of states held by a session (not an
// area, not stale), its holder's view of the file (Views, as a write of it
// would be judged, not written whole): the stale ones, by real path — a
// session that holds a file it must read again before it writes it (the
// reservation after a refusal, or a change by a process outside agentlock
// since it read it). A view that could not be judged is left out; the
// error of a holder's versions is returned with the others found.
func (w *Workspace) HeldViews(ctx context.Context, states []core.State) (map[string]View, error) {
	byOwner := map[string][]string{}
	var owners []string
	for _, st := range states {
		if st.Owner == "" || st.Stale || st.Path == "" || st.Area() {
			continue
		}
		if _, ok := byOwner[st.Owner]; !ok {
			owners = append(owners, st.Owner)
		}
		byOwner[st.Owner] = append(byOwner[st.Owner], st.Path)
	}
	var out map[string]View
	var errs []error
	for _, owner := range owners {
		views, err := w.Views(ctx, owner, byOwner[owner], nil)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s's views: %w", owner, err))
			continue
		}
		for _, v := range views {
			if !v.Stale || v.Err != nil {
				continue
			}
			if out == nil {
				out = make(map[string]View)
			}
			out[v.Path] = v
		}
	}
	return out, errors.Join(errs...)
}

// readViews judges session's views of the files it read whose version
// the workspace's own store keeps (as Views, not written whole), those of
// the versions that judged says to (every one when it is nil), and
// returns that store's versions; none, and no error, for a store that
// keeps none. The versions are read once, all of them: the view judged is
// the one read.
func (w *Workspace) readViews(ctx context.Context, session string, judged func(store.Version) bool) (store.Versions, []View, error) {
	v, err := w.versions()
	if errors.Is(err, ErrNoVersions) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	all, err := v.Seen(ctx, session, nil)
	if err != nil || len(all.Versions) == 0 {
		return v, nil, err
	}
	paths := make([]string, 0, len(all.Versions))
	for _, x := range all.Versions {
		if judged == nil || judged(x) {
			paths = append(paths, x.Path)
		}
	}
	if len(paths) == 0 {
		return v, nil, nil
	}
	views, err := w.judge(ctx, v, session, all, paths, nil)
	return v, views, err
}

// The status field of a version (store.Version.Stat) says, in the form of
// filedigest.Sum.Key, the status of the file when its content was last
// digested, when that status can prove the content unchanged while it
// stays (filedigest.Sum.Racy): with no prefix when that content was the
// version's (Digest), with toldPrefix when it was the one the session was
// told about (Told). Any other form — "<size>:<mtime_ns>:<inode>", which
// agentlock wrote before and still writes for a racy status, or "" — is a
// hint that proves nothing: the file is digested.
const toldPrefix = "told:"

// statField is the status field of a version whose content sum names,
// digested after before: its Key when not racy, else the older hint.
func statField(sum filedigest.Sum, before time.Time) string {
	if sum.Racy(before) {
		return sum.Stat
	}
	return sum.Key
}

// isKey reports whether a status field is a Key of filedigest (not racy:
// statField), with no prefix.
func isKey(stat string) bool {
	return strings.Count(stat, ":") == 4 && !strings.HasPrefix(stat, toldPrefix)
}

// toldStat is the status field of a version whose Told content was last
// digested with status field stat.
func toldStat(stat string) string {
	if isKey(stat) {
		return toldPrefix + stat
	}
	return stat
}

// statUnchanged reports whether ver's file still has the status recorded
// with the content it was last digested as (its Digest or its Told): its
// content is then that one still, and there is nothing to tell of it.
func statUnchanged(ver store.Version) bool {
	key := strings.TrimPrefix(ver.Stat, toldPrefix)
	if !isKey(key) {
		return false
	}
	now, err := filedigest.StatKey(ver.Path)
	return err == nil && now == key
}

// restat returns ver with the status of o, its view just digested, when
// o's content is ver's Digest or Told and its status can prove it
// (isKey) where ver's field does not already say it; false when there is
// nothing new to record.
func restat(ver store.Version, o View) (store.Version, bool) {
	want := o.stat
	if o.Now != ver.Digest {
		want = toldStat(o.stat)
	}
	if !isKey(o.stat) || ver.Stat == want {
		return ver, false
	}
	ver.Stat = want
	return ver, true
}

// StaleViews returns session's stale views of the files it read (those
// whose version the workspace's own store keeps), as a write of each would
// be judged: the files it must read again before it writes them (agentlock
// show). A view that could not be judged is left out.
func (w *Workspace) StaleViews(ctx context.Context, session string) ([]View, error) {
	_, views, err := w.readViews(ctx, session, nil)
	if err != nil {
		return nil, err
	}
	var out []View
	for _, o := range views {
		if o.Stale && o.Err == nil {
			out = append(out, o)
		}
	}
	return out, nil
}
