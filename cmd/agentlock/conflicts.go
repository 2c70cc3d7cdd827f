package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/agentlock/agentlock/report"
	"github.com/agentlock/agentlock/workspace"
)

// ConflictsOptions are the inputs of agentlock conflicts.
type ConflictsOptions struct {
	IO      *IOStreams
	Config  func() (*config, error)
	Predict bool
}

func newCmdConflicts(f *Factory, runF func(*ConflictsOptions) error) *cobra.Command {
	opts := &ConflictsOptions{IO: f.IO, Config: f.Config}
	cmd := &cobra.Command{
		Use:   "conflicts [--predict]",
		Short: "List the files changed in more than one worktree of this repository",
		Long: `List every file that more than one git worktree of this repository has changed:
uncommitted there (staged, unstaged or untracked), or committed on its branch
since its merge base with the other's. Each such file is a merge conflict that
may be coming: coordinate before editing it further.

With --predict, also ask git which of them the merge of the two branches would
leave in conflict (git merge-tree --write-tree, git 2.38 or later; committed
changes only). Exit 0 when there is none, 1 when a file is listed. Outside a
git work tree it is a usage error (exit 2), naming the folder it looked from.
See docs/worktrees.md.`,
		Example: `  agentlock conflicts
  agentlock conflicts --predict --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return conflictsRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.Predict, "predict", false, "also report which files git merge-tree says the merges would leave in conflict")
	return cmd
}

func conflictsRun(ctx context.Context, opts *ConflictsOptions) error {
	_, ws, out, err := workConfig(ctx, opts.IO, opts.Config)
	if err != nil {
		return err
	}
	if workspace.GitCommonDir(ws.Project) == "" {
		// Outside any project the project is ""; the folder looked from
		// is the working directory.
		where := ws.Project
		if where == "" {
			if where, err = workspace.WorkDir(); err != nil {
				return err
			}
		}
		return report.LineUsageErrorf("conflicts compares the git worktrees of a repository, and %s is in none (no .git above it)", where)
	}
	overlaps, err := ws.Overlaps(opts.Predict)
	if err != nil {
		return err
	}
	for _, ov := range overlaps {
		rec, line := report.Overlapped(ov)
		if !out.JSON {
			fmt.Fprintln(out.Out, report.Escape(line))
		} else if err := report.WriteJSON(out.Out, rec); err != nil {
			return err
		}
	}
	if len(overlaps) == 0 {
		out.Text("no file is changed in more than one worktree")
		return nil
	}
	return report.ErrReported
}
