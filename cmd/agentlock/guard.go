package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

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
	c, ws, err := workConfig(ctx, opts.Config)
	if err != nil {
		return err
	}
	if _, err := exec.LookPath("git"); err != nil {
		return fmt.Errorf("guard --staged reads git's staged files, and git is not on PATH: %w", err)
	}
	if inside, _ := git(".", "rev-parse", "--is-inside-work-tree"); strings.TrimSpace(inside) != "true" {
		wd, _ := os.Getwd()
		return &lineUsageError{msg: fmt.Sprintf("guard --staged checks the files staged in a git work tree, and %s is in none: "+
			"run it inside the repository (git's pre-commit hook does)", wd)}
	}
	top, err := git(".", "rev-parse", "--show-toplevel")
	if err != nil {
		return err
	}
	top = strings.TrimSpace(top)
	// -z: names as git stores them, unquoted; --no-renames: both sides
	// of a rename (the old path is deleted, the new one added).
	out, err := git(top, "diff", "--cached", "--name-only", "-z", "--no-renames")
	if err != nil {
		return err
	}
	var paths []string
	for _, name := range strings.Split(out, "\x00") {
		if name != "" {
			paths = append(paths, filepath.Join(top, filepath.FromSlash(name)))
		}
	}
	coordinated, unresolved := ws.Coordinated(paths, top)
	refused := 0
	for _, e := range unresolved {
		fmt.Fprintf(opts.IO.ErrOut, "agentlock: cannot check a staged file (%s), so the commit is refused; ask a person to run `agentlock status`\n", report.Escape(e.Error()))
		refused++
	}
	for _, p := range coordinated {
		chk, err := ws.Locker().CheckAndWarn(ctx, p, c.Session)
		if err != nil {
			fmt.Fprintf(opts.IO.ErrOut, "agentlock: cannot check the lock of %s (%s), so the commit is refused\n", report.Escape(rel(top, p)), report.Escape(err.Error()))
			refused++
			continue
		}
		if chk.OK {
			continue
		}
		if chk.Owner == "" {
			// Not free and no owner: a lock file that cannot be read.
			fmt.Fprintf(opts.IO.ErrOut, "agentlock: cannot tell who holds %s (%s), so the commit is refused\n", report.Escape(rel(top, p)), report.Escape(chk.Warning))
			refused++
			continue
		}
		if c.JSON {
			// The lock record of the refused file, as check prints it.
			if err := newPrinter(opts.IO, c).emit(report.Checked(chk)); err != nil {
				return err
			}
		}
		who := "no session"
		if c.Session != "" {
			who = "session " + c.Session
		}
		fmt.Fprintf(opts.IO.ErrOut, "agentlock: %s is locked by session %s (renewed %s ago); this commit (%s) must not include it: "+
			"unstage it (git restore --staged %s), or wait until %s releases it\n",
			report.Escape(rel(top, p)), report.Escape(chk.Owner), report.Human(chk.Age), report.Escape(who), report.Escape(report.ShellArg(rel(top, p))), report.Escape(chk.Owner))
		refused++
	}
	if refused > 0 {
		return errSilentRefusal
	}
	return nil
}

// rel is p relative to the repository's top, for messages.
func rel(top, p string) string {
	if r, err := filepath.Rel(top, p); err == nil && filepath.IsLocal(r) {
		return r
	}
	return p
}

// git runs git in dir and returns its stdout.
func git(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return string(out), nil
}
