package githook

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/agentlock/agentlock/core"
	"github.com/agentlock/agentlock/report"
	"github.com/agentlock/agentlock/workspace"
)

// ErrNoGit is the guard's failure when git is not on PATH.
var ErrNoGit = errors.New("git is not on PATH")

// ErrNotWorkTree is the guard's failure outside a git work tree: there is
// nothing staged to check.
var ErrNotWorkTree = errors.New("not in a git work tree")

// Staged returns the top of the git work tree of dir and the files staged
// for commit there (added, changed, deleted, either side of a rename), as
// absolute paths.
func Staged(dir string) (top string, paths []string, err error) {
	if _, err := exec.LookPath("git"); err != nil {
		return "", nil, fmt.Errorf("guard --staged reads git's staged files: %w: %w", ErrNoGit, err)
	}
	if inside, _ := Git(dir, "rev-parse", "--is-inside-work-tree"); strings.TrimSpace(inside) != "true" {
		return "", nil, fmt.Errorf("%s: %w", dir, ErrNotWorkTree)
	}
	if top, err = Git(dir, "rev-parse", "--show-toplevel"); err != nil {
		return "", nil, err
	}
	top = strings.TrimSpace(top)
	// -z: names as git stores them, unquoted; --no-renames: both sides
	// of a rename (the old path is deleted, the new one added).
	out, err := Git(top, "diff", "--cached", "--name-only", "-z", "--no-renames")
	if err != nil {
		return "", nil, err
	}
	for _, name := range strings.Split(out, "\x00") {
		if name != "" {
			paths = append(paths, filepath.Join(top, filepath.FromSlash(name)))
		}
	}
	return top, paths, nil
}

// Refusal is one staged file the commit must not include, or could not be
// checked.
type Refusal struct {
	// Held is the check of a file another live session holds: Held.Owner
	// is the holder. Nil when the file could not be checked.
	Held *core.Check
	// Message is the line for the committer (without "agentlock: "),
	// escaped for a terminal: who holds what and what to do, or why the
	// file could not be checked.
	Message string
}

// Guard applies the commit guard's rules to the staged files paths of the
// work tree top, for the committing session (empty: a person committing
// outside any session, refused every file an agent holds): a file that
// agentlock coordinates (workspace.Coordinated) and another live session
// holds is refused; so is a file whose lock cannot be read, or whose path
// cannot be resolved — the guard fails closed. The session's own files,
// free and stale ones, and files agentlock does not coordinate pass.
func Guard(ctx context.Context, ws *workspace.Workspace, top string, paths []string, session string) []Refusal {
	coordinated, unresolved := ws.Coordinated(paths, top)
	var out []Refusal
	for _, e := range unresolved {
		out = append(out, Refusal{Message: fmt.Sprintf("cannot check a staged file (%s), so the commit is refused; ask a person to run `agentlock status`", report.Escape(e.Error()))})
	}
	who := "no session"
	if session != "" {
		who = "session " + session
	}
	for _, p := range coordinated {
		name := rel(top, p)
		chk, err := ws.Locker().CheckAndWarn(ctx, p, session)
		switch {
		case err != nil:
			out = append(out, Refusal{Message: fmt.Sprintf("cannot check the lock of %s (%s), so the commit is refused", report.Escape(name), report.Escape(err.Error()))})
		case chk.OK:
		case chk.Owner == "":
			// Not free and no owner: a lock file that cannot be read.
			out = append(out, Refusal{Message: fmt.Sprintf("cannot tell who holds %s (%s), so the commit is refused", report.Escape(name), report.Escape(chk.Warning))})
		default:
			out = append(out, Refusal{Held: &chk, Message: report.Linef("%s (renewed %s ago); this commit (%s) must not include it: unstage it (git restore --staged %s), or wait until %s releases it",
				core.HeldByAs(name, p, chk.Via, "session "+chk.Owner), report.Human(chk.Age), who, report.ShellArg(name), chk.Owner)})
		}
	}
	return out
}

// rel is p relative to the repository's top, for messages.
func rel(top, p string) string {
	if r, err := filepath.Rel(top, p); err == nil && filepath.IsLocal(r) {
		return r
	}
	return p
}

// Git runs git in dir and returns its stdout; the error carries its stderr.
func Git(dir string, args ...string) (string, error) {
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
