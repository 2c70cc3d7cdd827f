package workspace

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/agentlock/agentlock/core"
)

// Bounds of the staleness timeout: below MinTimeout a lock would expire
// between two steps of one command; above MaxTimeout a crashed session's
// locks would outlive anyone's patience.
const (
	MinTimeout = 100 * time.Millisecond
	MaxTimeout = 7 * 24 * time.Hour
)

// MaxLockWait bounds AGENTLOCK_LOCK_WAIT: a longer wait for a critical
// section of microseconds is a hang by another name.
const MaxLockWait = time.Hour

// ParseTimeout reads a staleness timeout (Settings.Timeout): seconds
// ("120", "0.5") or a Go duration ("2m"), from MinTimeout to MaxTimeout;
// empty means core.DefaultTimeout. what names where the value came from
// (AGENTLOCK_TIMEOUT or --timeout). An invalid value comes back with the
// default, and an error naming what and the allowed range.
func ParseTimeout(what, s string) (time.Duration, error) {
	d, err := ParseDuration(what, s, core.DefaultTimeout, MinTimeout, MaxTimeout)
	if err != nil {
		return core.DefaultTimeout, err
	}
	return d, nil
}

// ParseLockWait reads AGENTLOCK_LOCK_WAIT (Settings.LockWait), how long to
// wait at most for another process's flock, like ParseTimeout, up to
// MaxLockWait; empty means the store's default (zero).
func ParseLockWait(s string) (time.Duration, error) {
	return ParseDuration("AGENTLOCK_LOCK_WAIT", s, 0, time.Millisecond, MaxLockWait)
}

// ParseConflictCache reads AGENTLOCK_CONFLICT_CACHE
// (Settings.ConflictCache), how long the changes of another worktree are
// trusted while its HEAD and index stay the same (docs/worktrees.md): 0
// caches nothing (a negative result); empty means the default (zero).
func ParseConflictCache(s string) (time.Duration, error) {
	d, err := ParseDuration("AGENTLOCK_CONFLICT_CACHE", s, 0, 0, time.Minute)
	if err == nil && d == 0 && strings.TrimSpace(s) != "" {
		d = -1
	}
	return d, err
}

// ParseSettleWindow reads AGENTLOCK_SETTLE_WINDOW (Settings.SettleWindow):
// how long before a read's after-tool hook a change by another session
// makes the read unsettled, from a millisecond to ten minutes; empty means
// the default (zero: SettleWindow).
func ParseSettleWindow(s string) (time.Duration, error) {
	return ParseDuration("AGENTLOCK_SETTLE_WINDOW", s, 0, time.Millisecond, 10*time.Minute)
}

// ParseDuration reads the setting what: seconds ("120", "0.5") or a Go
// duration ("2m") from min to max, def when empty. NaN, infinities and
// anything out of bounds are errors naming what and the bounds.
func ParseDuration(what, s string, def, min, max time.Duration) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return def, nil
	}
	d, err := ParseSeconds(s, min, max)
	switch {
	case errors.Is(err, ErrNotDuration):
		return 0, fmt.Errorf("%s=%q is invalid: it must be seconds (120) or a duration (2m), from %g s to %g s", what, s, min.Seconds(), max.Seconds())
	case err != nil:
		return 0, fmt.Errorf("%s=%q is invalid: it must be from %g s to %g s (seconds, or a duration from %s to %s)", what, s, min.Seconds(), max.Seconds(), min, max)
	}
	return d, nil
}

// Why ParseSeconds refuses a value; each caller words its own message.
var (
	// ErrNotDuration: neither seconds nor a Go duration.
	ErrNotDuration = errors.New("neither seconds nor a duration")
	// ErrNoDuration: NaN or an infinity, which no duration can be.
	ErrNoDuration = errors.New("no duration")
	// ErrBelowMin and ErrAboveMax: out of the caller's bounds.
	ErrBelowMin = errors.New("below the minimum")
	ErrAboveMax = errors.New("above the maximum")
)

// ParseSeconds is the one duration parser of agentlock's settings and
// flags: s (as given: it is not trimmed) is seconds ("120", "0.5") or a
// Go duration ("2m"), from min to max. Refusals are ErrNotDuration,
// ErrNoDuration, ErrBelowMin or ErrAboveMax, checked in that order.
func ParseSeconds(s string, min, max time.Duration) (time.Duration, error) {
	var d time.Duration
	if secs, err := strconv.ParseFloat(s, 64); err == nil || errors.Is(err, strconv.ErrRange) {
		// Compare in float seconds first: converting NaN, an infinity or
		// 1e30 to a Duration is undefined or overflows.
		switch {
		case math.IsNaN(secs) || math.IsInf(secs, 0):
			return 0, ErrNoDuration
		case secs < min.Seconds():
			return 0, ErrBelowMin
		case secs > max.Seconds():
			return 0, ErrAboveMax
		}
		d = time.Duration(secs * float64(time.Second))
	} else if d, err = time.ParseDuration(s); err != nil {
		return 0, ErrNotDuration
	}
	switch {
	case d < min:
		return 0, ErrBelowMin
	case d > max:
		return 0, ErrAboveMax
	}
	return d, nil
}

// Absolute makes relative LockDir, RegistryPath and Home absolute from the
// project root of the working directory (the working directory itself
// outside any project), so that every process of a project, wherever in
// it it runs, finds one lock folder and one registry.
func (s *Settings) Absolute() error {
	var base string
	for _, p := range []*string{&s.LockDir, &s.RegistryPath, &s.Home} {
		if *p == "" || filepath.IsAbs(*p) {
			continue
		}
		if base == "" {
			wd, err := WorkDir()
			if err != nil {
				return err
			}
			if base = FindProject(wd); base == "" {
				base = wd
			}
		}
		*p = filepath.Join(base, *p)
	}
	return nil
}
