package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/agentlock/agentlock/core"
)

// releaseRecord is the JSON line of one path of a release.
type releaseRecord struct {
	Path         string `json:"path"`
	Released     bool   `json:"released"`
	Note         string `json:"note,omitempty"`
	Error        string `json:"error,omitempty"`         // "not owner"
	CurrentOwner string `json:"current_owner,omitempty"` // with "not owner"
}

type releaseOptions struct {
	force bool
}

func newReleaseCmd(f *factory) *cobra.Command {
	opts := releaseOptions{}
	cmd := &cobra.Command{
		Use:   "release <path>... [--session ID] | release <path> <session>",
		Short: "Release the session's lock on one or more paths",
		Long: `Release the session's lock on each path: the lock file is emptied in place
and the path is free for anyone. Releasing a path that has no lock succeeds.
A lock held by another session is left untouched (exit 1, "not owner").

--force empties a lock whoever holds it, even a corrupt one. It is for people
clearing a lock by hand after checking that its owner is gone.`,
		Example: `  agentlock release src/auth.py claude-1
  agentlock release --session claude-1 src/a.go src/b.go
  agentlock release --force src/auth.py`,
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			return releaseRun(f, cmd, args, opts)
		}),
	}
	cmd.Flags().BoolVar(&opts.force, "force", false, "empty the lock whoever holds it (for people, not agents)")
	return cmd
}

func releaseRun(f *factory, cmd *cobra.Command, args []string, opts releaseOptions) error {
	c, err := loadConfig(cmd)
	if err != nil {
		return err
	}
	if opts.force {
		return forceReleaseRun(f, c, args)
	}
	paths, session, err := pathsAndSession(cmd, args, c)
	if err != nil {
		return err
	}
	locker := c.locker()
	refused := false
	var dropped []string
	defer func() { syncDoNotTouch(f, c, session, dropped, false) }()
	for _, p := range paths {
		prev, err := locker.Release(p, session)
		var notOwner *core.NotOwnerError
		switch {
		case errors.As(err, &notOwner):
			refused = true
			if c.JSON {
				err = writeJSON(f.Out, releaseRecord{Path: notOwner.Path, Error: "not owner", CurrentOwner: notOwner.Owner})
			} else {
				fmt.Fprintf(f.ErrOut, "agentlock: %s is locked by %s, not by %s: not released.\n", notOwner.Path, notOwner.Owner, session)
				err = nil
			}
		case err != nil:
			return err
		case prev.Owner != "":
			dropped = append(dropped, prev.Path)
			err = emit(f, c, releaseRecord{Path: prev.Path, Released: true}, "released "+prev.Path)
		default:
			err = emit(f, c, releaseRecord{Path: prev.Path, Released: true, Note: "was not locked"}, "released "+prev.Path+" (it was not locked)")
		}
		if err != nil {
			return err
		}
	}
	if refused {
		return errSilentRefusal
	}
	return nil
}

func forceReleaseRun(f *factory, c config, paths []string) error {
	if len(paths) == 0 {
		return usagef("at least one path is required")
	}
	locker := c.locker()
	for _, p := range paths {
		prev, err := locker.ForceRelease(p)
		if err != nil {
			return err
		}
		human := "released " + prev.Path + " (it was not locked)"
		rec := releaseRecord{Path: prev.Path, Released: true, Note: "was not locked"}
		if prev.Owner != "" {
			human = fmt.Sprintf("released %s by force (it was held by %s)", prev.Path, prev.Owner)
			rec.Note = "forced; was held by " + prev.Owner
		}
		if err := emit(f, c, rec, human); err != nil {
			return err
		}
	}
	return nil
}
