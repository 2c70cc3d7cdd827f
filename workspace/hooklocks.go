package workspace

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/agentlock/agentlock/core"
	"github.com/agentlock/agentlock/internal/sys/plainfile"
	"github.com/agentlock/agentlock/store"
)

// How long the locks a pre-edit hook takes live (issue 36,
// docs/lock-lifetime.md). A hook takes a file's lock for the edit it lets
// through (store.TakenByHook); under LifetimeTurn such a lock is released
// when its holder's turn ends (the turn-end hook), once it has gone unused
// for the idle bound (core.Options.HookIdle), and at the session's end;
// under LifetimeSession it lives until the session ends or the lock
// expires, as every lock did before. A lock the agent took on purpose
// (agentlock acquire, register --claim, an area) lives until released or
// expired under either.

// Lifetime is how long the locks a pre-edit hook takes live.
type Lifetime string

// The lifetimes of the locks hooks take.
const (
	// LifetimeTurn: until the holder's turn ends, the lock goes unused for
	// the idle bound, or the session ends.
	LifetimeTurn Lifetime = "turn"
	// LifetimeSession: until the session ends, or the lock expires.
	LifetimeSession Lifetime = "session"
)

// The defaults of the hook locks' policy (HookLocks), chosen from the
// fleet benchmark (docs/fleet.md, "How long a hook's lock lives"): with
// read versions in place (issue 34) the turn lifetime loses nothing and
// gave the fleet 1.6 to 2 times the useful throughput of the session
// lifetime at 8 and 32 agents, with half the refusals per write or fewer.
// The hook's wait did not raise the throughput (at 8 agents it was lower
// in every run, by 1 to 7 points) and made the slowest hooks 10 times
// slower: it is off unless set.
const (
	// DefaultLifetime is the lifetime when nothing sets one.
	DefaultLifetime = LifetimeTurn
	// DefaultHookIdle is the idle bound under LifetimeTurn when nothing
	// sets one.
	DefaultHookIdle = 60 * time.Second
	// DefaultHookWait is how long a pre-edit hook waits, under
	// LifetimeTurn, for a lock that its idle bound is about to free,
	// when nothing sets it: not at all.
	DefaultHookWait = time.Duration(0)
)

// MaxHookWait bounds the hook's wait: the harnesses give a hook 30
// seconds (agentlock's hook entries), and the refusal must come before.
const MaxHookWait = 20 * time.Second

// The variables of the hook locks' policy, and the project's file.
const (
	HookLocksVar = "AGENTLOCK_HOOK_LOCKS"
	HookIdleVar  = "AGENTLOCK_HOOK_IDLE"
	HookWaitVar  = "AGENTLOCK_HOOK_WAIT"
	// HookLocksFile is the file of a home that records the project's
	// policy, written by hand (docs/lock-lifetime.md): lines
	// "lifetime=turn", "idle=60s", "wait=10s", each optional, "#" comments.
	HookLocksFile = "hook-locks"
)

// HookLockSettings are a process's own values of the policy (its
// environment); unset ones come from the project, else the defaults.
type HookLockSettings struct {
	// Lifetime is AGENTLOCK_HOOK_LOCKS; "" when unset.
	Lifetime Lifetime
	// Idle is AGENTLOCK_HOOK_IDLE (zero: no idle bound), when IdleSet.
	Idle    time.Duration
	IdleSet bool
	// Wait is AGENTLOCK_HOOK_WAIT (zero: refuse at once), when WaitSet.
	Wait    time.Duration
	WaitSet bool
}

// HookLocks is the policy of a workspace on the locks hooks take, and
// where each value came from (the variable, the project's file, or
// "default").
type HookLocks struct {
	Lifetime Lifetime
	// Idle is the idle bound under LifetimeTurn; zero for none.
	Idle time.Duration
	// Wait is how long a pre-edit hook waits, under LifetimeTurn, for
	// locks their idle bound frees within it, instead of refusing; zero
	// refuses at once.
	Wait time.Duration

	LifetimeFrom, IdleFrom, WaitFrom string
}

// LockIdle is the idle bound the engine judges hook locks with
// (core.Options.HookIdle): Idle under LifetimeTurn, else none.
func (h HookLocks) LockIdle() time.Duration {
	if h.Lifetime != LifetimeTurn {
		return 0
	}
	return h.Idle
}

// GateWait is how long a pre-edit hook waits for a lock that its idle
// bound frees within it: Wait under LifetimeTurn with an idle bound, else
// zero.
func (h HookLocks) GateWait() time.Duration {
	if h.LockIdle() == 0 {
		return 0
	}
	return h.Wait
}

// ParseLifetime reads a lifetime; what names where it came from. Empty is
// "" with no error: not set.
func ParseLifetime(what, s string) (Lifetime, error) {
	switch l := Lifetime(strings.ToLower(strings.TrimSpace(s))); l {
	case "", LifetimeTurn, LifetimeSession:
		return l, nil
	}
	return "", fmt.Errorf("%s=%q is invalid: want turn or session", what, strings.TrimSpace(s))
}

// ParseHookIdle reads an idle bound: seconds or a duration up to
// MaxTimeout, "0" or "off" for none; set is false when s is empty.
func ParseHookIdle(what, s string) (d time.Duration, set bool, err error) {
	return parseOffDuration(what, s, MaxTimeout)
}

// ParseHookWait reads the hook's wait: seconds or a duration up to
// MaxHookWait, "0" or "off" to refuse at once; set is false when s is
// empty.
func ParseHookWait(what, s string) (d time.Duration, set bool, err error) {
	return parseOffDuration(what, s, MaxHookWait)
}

func parseOffDuration(what, s string, max time.Duration) (time.Duration, bool, error) {
	s = strings.TrimSpace(s)
	switch strings.ToLower(s) {
	case "":
		return 0, false, nil
	case "off", "none":
		return 0, true, nil
	}
	d, err := ParseDuration(what, s, 0, 0, max)
	if err != nil {
		return 0, false, fmt.Errorf("%w (or off)", err)
	}
	return d, true, nil
}

// hookLocks resolves the policy of the workspace whose home is home: each
// value from the process's own settings, else the project's file, else the
// default. A project file that cannot be used is an error, and the safe
// policy stands in for what it says: LifetimeSession, which never frees a
// lock before its session ends.
func (s Settings) hookLocks(home string) (HookLocks, error) {
	own := s.HookLocks
	h := HookLocks{Lifetime: DefaultLifetime, Idle: DefaultHookIdle, Wait: DefaultHookWait,
		LifetimeFrom: "default", IdleFrom: "default", WaitFrom: "default"}
	file, err := readHookLocksFile(home)
	if err != nil {
		h.Lifetime = LifetimeSession
		h.LifetimeFrom = filepath.Join(home, HookLocksFile)
	} else {
		at := filepath.Join(home, HookLocksFile)
		if file.Lifetime != "" {
			h.Lifetime, h.LifetimeFrom = file.Lifetime, at
		}
		if file.IdleSet {
			h.Idle, h.IdleFrom = file.Idle, at
		}
		if file.WaitSet {
			h.Wait, h.WaitFrom = file.Wait, at
		}
	}
	if own.Lifetime != "" {
		h.Lifetime, h.LifetimeFrom = own.Lifetime, HookLocksVar
	}
	if own.IdleSet {
		h.Idle, h.IdleFrom = own.Idle, HookIdleVar
	}
	if own.WaitSet {
		h.Wait, h.WaitFrom = own.Wait, HookWaitVar
	}
	return h, err
}

// readHookLocksFile reads the project's HookLocksFile in home: nothing set
// when there is none.
func readHookLocksFile(home string) (HookLockSettings, error) {
	file := filepath.Join(home, HookLocksFile)
	data, err := plainfile.ReadFile(file)
	if errors.Is(err, os.ErrNotExist) {
		return HookLockSettings{}, nil
	}
	if err != nil {
		return HookLockSettings{}, fmt.Errorf("the project's hook locks: %w", err)
	}
	out, err := parseHookLocks(file, data)
	if err != nil {
		return HookLockSettings{}, fmt.Errorf("the project's hook locks: %w; until it is fixed, hook locks live until their session ends", err)
	}
	return out, nil
}

// parseHookLocks reads the lines of a HookLocksFile.
func parseHookLocks(file string, data []byte) (HookLockSettings, error) {
	var out HookLockSettings
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		key, value, ok := strings.Cut(line, "=")
		what := fmt.Sprintf("%s:%d: %s", file, n, strings.TrimSpace(key))
		var err error
		switch strings.TrimSpace(key) {
		case "lifetime":
			out.Lifetime, err = ParseLifetime(what, value)
		case "idle":
			out.Idle, out.IdleSet, err = ParseHookIdle(what, value)
		case "wait":
			out.Wait, out.WaitSet, err = ParseHookWait(what, value)
		default:
			ok = false
		}
		if !ok {
			return out, fmt.Errorf("%s:%d: %q is not lifetime=, idle= or wait=", file, n, line)
		}
		if err != nil {
			return out, err
		}
	}
	return out, sc.Err()
}

// HookLocks returns the workspace's policy on the locks hooks take (see
// Lifetime), resolved when it was opened; a project file that could not
// be used is among Problems.
func (w *Workspace) HookLocks() HookLocks { return w.hookLocks }

// EndTurn releases, under LifetimeTurn, the locks of the workspace that
// session's hooks took (its turn ended: the turn-end hook), drops them
// from its do_not_touch, and returns them; under LifetimeSession it
// releases nothing. The locks it took on purpose stay, and so do those
// whose note beside the record is lost (read as explicit).
func (w *Workspace) EndTurn(ctx context.Context, session string) ([]core.State, *MirrorError, error) {
	if w.hookLocks.Lifetime != LifetimeTurn {
		return nil, nil, nil
	}
	released, err := w.Locker().ReleaseSessionTaken(ctx, session, store.TakenByHook)
	paths := make([]string, len(released))
	for i, st := range released {
		paths[i] = st.Path
	}
	return released, w.mirror(ctx, session, paths, false), err
}
