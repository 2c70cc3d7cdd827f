package doctor

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/agentlock/agentlock/workspace"
)

// readVersions: the stale-write mode (docs/read-versions.md) and where it
// comes from, and no damaged version record in the store. A mode other
// than deny is a warning (stale writes go through); damaged records are a
// warning too: a write of their files is refused until the session reads
// them again, which repairs them.
func (d *run) readVersions(ctx context.Context) Check {
	c := Check{Name: "read-versions"}
	if d.unusable != nil {
		return d.notChecked("read-versions", "the read versions are kept")
	}
	mode, source, modeErr := d.ws.StaleMode()
	detail := fmt.Sprintf("stale writes: %s (%s)", mode, source)
	damaged, err := d.ws.DamagedVersions(ctx)
	switch {
	case errors.Is(err, workspace.ErrNoVersions):
		c.Status, c.Detail = Warn, detail+"; this store keeps no read versions: no write is checked against what its agent read"
		c.Fix = "use the lock files or etcd, which keep them"
	case err != nil:
		c.Status, c.Detail = Warn, fmt.Sprintf("%s; the read versions cannot be listed: %v", detail, err)
		c.Fix = "see the store and lock-files checks"
	case modeErr != nil:
		c.Status, c.Detail = Warn, fmt.Sprintf("%s: %v", detail, modeErr)
		c.Fix = "write deny, warn or off into " + source + " (agentlock init --stale-writes MODE), or remove it"
	case len(damaged) > 0:
		msgs := make([]string, len(damaged))
		for i, dmg := range damaged {
			msgs[i] = dmg.Error()
		}
		c.Status = Warn
		c.Detail = fmt.Sprintf("%s; %d damaged version record(s): %s", detail, len(damaged), strings.Join(msgs, "; "))
		c.Fix = "nothing to do: a write of those files is refused until its session reads them again, which repairs the record"
	case mode != workspace.StaleDeny:
		c.Status, c.Detail = Warn, detail+": a write based on a stale read is "+map[workspace.StaleMode]string{workspace.StaleWarn: "let through with a warning", workspace.StaleOff: "not checked"}[mode]
		c.Fix = "agentlock init --stale-writes deny, or unset AGENTLOCK_STALE_WRITES, to refuse such writes"
	default:
		c.Status, c.Detail = OK, detail+"; no damaged version record"
	}
	return c
}
