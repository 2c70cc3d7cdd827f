package workspace

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/agentlock/agentlock/core"
	"github.com/agentlock/agentlock/internal/sys/plainfile"
)

// TimeoutFile is the file of a home that records the project's staleness
// timeout, written when the home is set up. agent-registry 0.2 ignores it.
//
// Staleness is judged by the reader (design/agentlock.md), so one process
// started with a shorter AGENTLOCK_TIMEOUT would see every other session's
// lock as stale long before its owner stops renewing it. The project's
// timeout is the floor of every process's: a process configured longer
// waits longer, none waits less, so the page, release --force, takeovers
// and status all agree on which locks are stale.
const TimeoutFile = "timeout"

// ProjectTimeout returns the timeout recorded in a home, zero when none is
// recorded (a home set up before this file existed, or by agent-registry
// 0.2). The file holds what AGENTLOCK_TIMEOUT holds: seconds ("300") or a
// Go duration ("5m"), from MinTimeout to MaxTimeout; anything else is an
// error naming the file.
func ProjectTimeout(home string) (time.Duration, error) {
	file := filepath.Join(home, TimeoutFile)
	data, err := plainfile.ReadFile(file)
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("the project's timeout: %w", err)
	}
	text := strings.TrimSpace(string(data))
	d, err := ParseSeconds(text, MinTimeout, MaxTimeout)
	if err != nil {
		return 0, fmt.Errorf("the project's timeout: %s holds %q, not seconds (300) or a duration (5m) from %g s to %g s; "+
			"until it is fixed, locks are judged with the longer of %s and this process's timeout",
			file, text, MinTimeout.Seconds(), MaxTimeout.Seconds(), core.DefaultTimeout)
	}
	return d, nil
}

// recordTimeout writes the timeout of these settings into a home that
// records none yet; an existing record is never changed.
func (s Settings) recordTimeout(home string) error {
	p := filepath.Join(home, TimeoutFile)
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, os.ErrExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("record the project's timeout: %w", err)
	}
	_, err = fmt.Fprintf(f, "%s\n", s.timeout())
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("record the project's timeout in %s: %w", p, err)
	}
	return nil
}

// effectiveTimeout is the timeout a process of this home judges staleness
// with: its own, never shorter than the project's. A record that cannot be
// read or parsed is returned as the error, with the safe timeout: the
// longest known one.
func (s Settings) effectiveTimeout(home string) (time.Duration, error) {
	own := s.timeout()
	project, err := ProjectTimeout(home)
	if err != nil {
		return max(own, core.DefaultTimeout), err
	}
	return max(own, project), nil
}

// Timeout is the staleness timeout this workspace judges every lock with:
// the process's own, never shorter than the project's (TimeoutFile).
func (w *Workspace) Timeout() time.Duration { return w.settings.timeout() }

// OwnTimeout is the timeout the process was configured with
// (AGENTLOCK_TIMEOUT, --timeout, or the default), before the project's
// floor.
func (w *Workspace) OwnTimeout() time.Duration { return w.ownTimeout }
