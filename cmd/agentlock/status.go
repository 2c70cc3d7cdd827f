package main

import (
	"errors"
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/agentlock/agentlock/core"
)

// statusRecord is the JSON line of one lock file in a status listing.
type statusRecord struct {
	Path      string   `json:"path,omitempty"`
	File      string   `json:"file"`
	State     string   `json:"state"` // locked, stale, free, corrupt
	SessionID string   `json:"session_id,omitempty"`
	Age       *float64 `json:"age,omitempty"`
	ExpiresIn *float64 `json:"expires_in,omitempty"`
	Error     string   `json:"error,omitempty"` // why a corrupt file cannot be read
}

// StatusOptions are the inputs of agentlock status.
type StatusOptions struct {
	IO     *IOStreams
	Config func() (*config, error)

	All bool
}

func newCmdStatus(f *Factory, runF func(*StatusOptions) error) *cobra.Command {
	opts := &StatusOptions{IO: f.IO, Config: f.Config}
	cmd := &cobra.Command{
		Use:   "status",
		Short: "List the locks of this project's lock directory",
		Long: `List every lock in the lock directory of the current project: the locked
path, its owner, the time since it was renewed, the time left before it goes
stale, and its state. Lock files that cannot be parsed are listed as corrupt.
Released (empty) lock files are shown with --all.`,
		Example: `  agentlock status
  agentlock status --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return statusRun(opts)
		},
	}
	cmd.Flags().BoolVar(&opts.All, "all", false, "also list released (free) lock files")
	return cmd
}

func statusRun(opts *StatusOptions) error {
	c, err := opts.Config()
	if err != nil {
		return err
	}
	ws, err := c.workWorkspace()
	if err != nil {
		return err
	}
	states, problems, err := ws.Locker().List()
	if err != nil {
		return err
	}
	var records []statusRecord
	for _, s := range states {
		rec := statusRecord{Path: s.Path, File: s.Ref, State: "free"}
		if s.Owner != "" {
			age, left := seconds(s.Age), seconds(max(s.Left, 0))
			rec.SessionID, rec.Age, rec.ExpiresIn, rec.State = s.Owner, &age, &left, "locked"
			if s.Stale {
				rec.State = "stale"
			}
		} else if !opts.All {
			continue
		}
		records = append(records, rec)
	}
	for _, p := range problems {
		rec := statusRecord{State: "corrupt", Error: p.Error()}
		var corrupt *core.CorruptError
		if errors.As(p, &corrupt) {
			rec.File, rec.Error = corrupt.Ref, corrupt.Reason
		}
		records = append(records, rec)
	}
	if c.JSON {
		for _, r := range records {
			if err := writeJSON(opts.IO.Out, r); err != nil {
				return err
			}
		}
		return nil
	}
	if len(records) == 0 {
		_, err := fmt.Fprintf(opts.IO.Out, "no locks in %s\n", ws.LockDir)
		return err
	}
	w := tabwriter.NewWriter(opts.IO.Out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "PATH\tOWNER\tAGE\tLEFT\tSTATE")
	for _, r := range records {
		path, owner, age, left := r.Path, r.SessionID, "-", "-"
		if path == "" {
			path = r.File
		}
		if owner == "" {
			owner = "-"
		}
		if r.Age != nil {
			age, left = fmt.Sprintf("%.1fs", *r.Age), fmt.Sprintf("%.1fs", *r.ExpiresIn)
		}
		state := r.State
		if r.Error != "" {
			state += ": " + r.Error
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", path, owner, age, left, state)
	}
	return w.Flush()
}
