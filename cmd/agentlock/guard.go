package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/agentlock/agentlock/internal/githook"
	"github.com/agentlock/agentlock/report"
)

// GuardOptions are the inputs of agentlock guard.
type GuardOptions struct {
	IO     *IOStreams
	Config func() (*config, error)

	Staged bool
}

func newCmdGuard(f *Factory, runF func(*GuardOptions) error) *cobra.Command {
	opts := &GuardOptions{IO: f.IO, Config: f.Config}
	cmd := &cobra.Command{
		Use:   "guard --staged",
		Short: "Refuse a commit that touches a file another session holds (the git pre-commit guard)",
		Long: `With --staged, check every file staged for commit in the git repository of the
working directory (added, changed, deleted, either side of a rename) against
agentlock's locks: exit 1, with one line on stderr per file naming its holder,
when another live session holds one; exit 0 otherwise. The committing
session (the one agentlock resolves here: --session, AGENTLOCK_SESSION, the
harness's id or the recorded agent process, as for every command) may commit
its own files. A person committing outside any session is refused every file
an agent holds. With --json, the lock record of each refused file (as check
prints it) goes to stdout too. Outside an agentlock project (no .agent-registry
folder, which init or the first lock creates, and no AGENT_REGISTRY_* variables) it
allows everything. Outside a git work tree it is a usage error (exit 2). A path it cannot check (a lock file it cannot read) refuses the
commit.

"agentlock init --git-hook" installs it as git's pre-commit hook: the last line
of defence for edits that bypassed the harness hooks (shell writes). "git commit
--no-verify" skips it, as it skips every pre-commit hook.`,
		Example: `  agentlock guard --staged
  agentlock init --git-hook`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if !opts.Staged {
				return usagef("guard needs --staged (the only mode)")
			}
			if runF != nil {
				return runF(opts)
			}
			return guardRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.Staged, "staged", false, "check the files staged for commit")
	return cmd
}

func guardRun(ctx context.Context, opts *GuardOptions) error {
	c, ws, out, err := workConfig(ctx, opts.IO, opts.Config)
	if err != nil {
		return err
	}
	top, paths, err := githook.Staged(".")
	if errors.Is(err, githook.ErrNotWorkTree) {
		wd, _ := os.Getwd()
		return report.LineUsageErrorf("guard --staged checks the files staged in a git work tree, and %s is in none: "+
			"run it inside the repository (git's pre-commit hook does)", wd)
	}
	if err != nil {
		return err
	}
	refusals := githook.Guard(ctx, ws, top, paths, c.Service().Identity(ctx).ID)
	for _, r := range refusals {
		if r.Held != nil && c.JSON {
			// The lock record of the refused file, as check prints it.
			if err := out.Emit(report.Checked(*r.Held)); err != nil {
				return err
			}
		}
		fmt.Fprintln(opts.IO.ErrOut, "agentlock: "+r.Message)
	}
	if len(refusals) > 0 {
		return report.ErrReported
	}
	return nil
}
