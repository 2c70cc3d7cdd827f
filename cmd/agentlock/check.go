package main

import (
	"fmt"

	"github.com/spf13/cobra"
)

// CheckOptions are the inputs of agentlock check.
type CheckOptions struct {
	IO     *IOStreams
	Config func() (*config, error)

	Paths []string
}

// checkRecord is the JSON line of one path of a check, merging the
// dictionaries of agent-registry 0.2's is_locked and check_and_warn.
type checkRecord struct {
	Path       string   `json:"path"`
	State      string   `json:"state"` // free, locked, locked-by-me, stale
	Locked     bool     `json:"locked"`
	SessionID  string   `json:"session_id,omitempty"` // the owner, when locked
	Age        *float64 `json:"age,omitempty"`
	ExpiresIn  *float64 `json:"expires_in,omitempty"`
	StaleOwner string   `json:"stale_owner,omitempty"`
	OK         bool     `json:"ok"`              // the asking session may modify the path
	Owner      string   `json:"owner,omitempty"` // the owner, when locked
	Warning    string   `json:"warning,omitempty"`
}

func newCmdCheck(f *Factory, runF func(*CheckOptions) error) *cobra.Command {
	opts := &CheckOptions{IO: f.IO, Config: f.Config}
	return &cobra.Command{
		Use:   "check <path>... [--session ID]",
		Short: "Tell whether paths are locked, without changing anything",
		Long: `Report the state of each path: free, locked (by another session),
locked-by-me (by the session given with --session or AGENTLOCK_SESSION), or
stale (its owner stopped renewing it; an acquire will take it over).

Exit 0 when the session may modify every path; exit 1 when another session
holds one of them. check never modifies a lock.`,
		Example: `  agentlock check src/auth.py
  agentlock check --json --session claude-1 src/a.go src/b.go`,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Paths = args
			if runF != nil {
				return runF(opts)
			}
			return checkRun(opts)
		},
	}
}

func checkRun(opts *CheckOptions) error {
	c, err := opts.Config()
	if err != nil {
		return err
	}
	if len(opts.Paths) == 0 {
		return usagef("at least one path is required")
	}
	ws, err := c.workWorkspace()
	if err != nil {
		return err
	}
	locker := ws.Locker()
	blocked := false
	for _, p := range opts.Paths {
		chk, err := locker.CheckAndWarn(p, c.Session)
		if err != nil {
			return err
		}
		rec := checkRecord{Path: chk.Path, OK: chk.OK, Warning: chk.Warning}
		var line string
		switch {
		case chk.Owner == "":
			rec.State, line = "free", chk.Path+": free"
		case chk.Stale:
			rec.State, rec.StaleOwner = "stale", chk.Owner
			line = fmt.Sprintf("%s: stale (last owner %s, not renewed for %s)", chk.Path, chk.Owner, human(chk.Age))
		default:
			age, left := seconds(chk.Age), seconds(chk.Left)
			rec.Locked, rec.SessionID, rec.Owner, rec.Age, rec.ExpiresIn = true, chk.Owner, chk.Owner, &age, &left
			rec.State = "locked"
			line = fmt.Sprintf("%s: locked by %s (renewed %s ago, expires in %s)", chk.Path, chk.Owner, human(chk.Age), human(chk.Left))
			if chk.OK {
				rec.State = "locked-by-me"
				line = fmt.Sprintf("%s: locked by you (%s), expires in %s", chk.Path, chk.Owner, human(chk.Left))
			}
		}
		blocked = blocked || !chk.OK
		if err := emit(opts.IO, c, rec, line); err != nil {
			return err
		}
	}
	if blocked {
		return errSilentRefusal
	}
	return nil
}
