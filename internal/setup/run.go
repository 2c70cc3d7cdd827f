package setup

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentlock/agentlock/integrations"
	"github.com/agentlock/agentlock/internal/githook"
	"github.com/agentlock/agentlock/report"
	"github.com/agentlock/agentlock/workspace"
)

// Reporter receives the steps of init and uninit for a front end to show:
// action names the step for machines (created, would-change, kept, note,
// ...), path and detail complete it, and line says it for people.
type Reporter interface {
	Change(action, path, detail, line string)
}

// When init or uninit refused and has already said why (on ErrOut or in
// its steps), it returns report.ErrReported: the front end only exits
// non-zero. A command line it refuses is a report.UsageError said in one
// line (report.LineUsageErrorf) that already says what to do instead.

// Output is where init and uninit say what they do.
type Output struct {
	// Report receives the steps, on the front end's output.
	Report Reporter
	// ErrOut receives refusals and warnings for people, verbatim.
	ErrOut io.Writer
}

// notes reports notes for people as steps of action "note".
func (o Output) notes(notes []string) {
	for _, n := range notes {
		o.Report.Change("note", "", n, "note: "+n)
	}
}

// SharedHomeFile is where a project records the home it shares, as
// messages name it.
var SharedHomeFile = workspace.HomeDirName + "/" + workspace.SharedHomeFile

// errNotUpToDate ends init --check when something would change.
func (o Output) errNotUpToDate() error {
	fmt.Fprintln(o.ErrOut, "agentlock: the set-up is not up to date: run agentlock init with the same options")
	return report.ErrReported
}

// Init is one run of agentlock init, besides the agents' files that the
// Project it installs covers.
type Init struct {
	Output
	// Settings are the invocation's settings (package workspace).
	Settings workspace.Settings
	// Dir is the working directory, real.
	Dir string
	// DryRun says what would change; Check only whether anything would.
	DryRun, Check bool
	// Home is --home as given ("" keeps the current home); "~/" is the
	// user's home, relative folders are taken from the working directory.
	Home string
	// GitHook also installs git's pre-commit guard.
	GitHook bool
	// Store is the store to record (--store), when StoreGiven.
	Store workspace.StoreSpec
	// StoreGiven is set when a store is to be recorded.
	StoreGiven bool
	// Scope is workspace.ScopeRepository or workspace.ScopeCheckout to
	// record, "" to leave as it is.
	Scope string
	// DenyConflicts is recorded when DenyConflictsGiven: hooks deny the
	// edit of a file changed in another worktree instead of warning.
	DenyConflicts, DenyConflictsGiven bool
	// StaleWrites, when not "", is the stale-write mode to record in the
	// project's home (--stale-writes: docs/read-versions.md).
	StaleWrites workspace.StaleMode
	// Writer is this build; RecordWriter records it as the writer of the
	// agents' files (when agents were named).
	Writer       Writer
	RecordWriter bool
	// Binary checks the agentlock that hooks find on PATH: what is wrong
	// and what to do, in one line; "" when it is this one.
	Binary func() (string, error)
	// EtcdBuild reports whether the build that runs a project with a
	// distributed store can be found.
	EtcdBuild func() bool
	// Named are the agents the command line names one by one (not through
	// "all"); Command is that command line, without the program name.
	// A named agent that init would set up for nothing (LeftOut) is
	// refused, nothing changed, naming the command that sets it up.
	Named   []string
	Command []string
	// HandOver, when not nil, runs the whole init in the build that links
	// the store being recorded (agentlock-etcd), which checks the store
	// before it records it: this build cannot. It returns only when the
	// hand-over failed. Nil in the build that links the store.
	HandOver func() error
}

// StoreOptions are init's flags of the etcd store's options, which go
// only with --store.
func StoreOptions() []string {
	return []string{"cacert", "cert", "key", "user", "password", "repo-id", "dial-timeout"}
}

// ParseStore reads init's store flags: given says whether --store was on
// the command line, changed whether one of StoreOptions was. Without
// --store, every store option is refused; "files" is the lock files (the
// zero spec), which take none of them (refused, never dropped without a
// word); else --store must be an etcd URL,
// etcd://host:2379[,host2:2379]/prefix. A --dial-timeout must be more than
// 0: the store file keeps only a positive bound, another would silently
// become the default. Every refusal is a usage error.
func ParseStore(spec workspace.StoreSpec, given bool, changed func(option string) bool) (workspace.StoreSpec, error) {
	for _, name := range StoreOptions() {
		switch {
		case !changed(name):
		case !given:
			return spec, report.UsageErrorf("--%s goes with --store", name)
		case spec.URL == "files":
			return spec, report.UsageErrorf("--%s goes with --store etcd://..., not with --store files", name)
		}
	}
	switch u := spec.URL; {
	case !given:
		return spec, nil
	case u == "files":
		return workspace.StoreSpec{}, nil
	case !strings.HasPrefix(u, "etcd://") || len(u) == len("etcd://"):
		return spec, report.UsageErrorf("--store %q: want etcd://host:2379[,host2:2379]/prefix, or files", u)
	case changed("dial-timeout") && spec.DialTimeout <= 0:
		return spec, report.UsageErrorf("--dial-timeout %s: must be more than 0 (default 2s)", spec.DialTimeout)
	}
	return spec, nil
}

// CheckScope refuses, as a usage error, an init --scope that is neither
// workspace.ScopeRepository nor workspace.ScopeCheckout ("" changes
// nothing).
func CheckScope(scope string) error {
	switch scope {
	case "", workspace.ScopeRepository, workspace.ScopeCheckout:
		return nil
	}
	return report.UsageErrorf("--scope %q: want %s or %s", scope, workspace.ScopeRepository, workspace.ScopeCheckout)
}

// RecordStore records the store in the project's .agent-registry/store,
// or says what it would do (DryRun, Check). A store other than the lock
// files is checked first (workspace.CheckStore), by the build that links
// it (HandOver): one the project could not use — a cluster that does not
// answer, a repository it cannot name — is refused with nothing changed,
// for once recorded every command and hook of the project would refuse.
func (in *Init) RecordStore(ctx context.Context) error {
	project := workspace.FindProject(in.Dir)
	if project == "" {
		return fmt.Errorf("--store: no project here (no .git or %s above %s)", workspace.HomeDirName, in.Dir)
	}
	file := filepath.Join(workspace.HomeDirName, workspace.StoreFile)
	what := "the project's store: lock files"
	if in.Store.Set() {
		what = "the project's store: " + in.Store.URL
	}
	if in.DryRun || in.Check {
		cur, err := workspace.ReadStoreSpec(project)
		if err != nil {
			return err
		}
		cur.Scope = "" // kept, whatever --store says
		if cur != in.Store {
			verb := "would-set"
			if in.Check {
				verb = "out-of-date"
			}
			in.Report.Change(verb, file, what, fmt.Sprintf("%s %s: %s", verb, file, what))
		}
		return nil
	}
	// Once the store is recorded, every command here (and every hook)
	// refuses to work without the etcd build: refuse first, with nothing
	// changed, rather than leave a project nobody can lock in.
	if in.Store.Set() && !in.EtcdBuild() {
		return fmt.Errorf("--store %s: no agentlock-etcd beside agentlock or on PATH, and without it every command and hook of this project would refuse to work; install it first (go build -tags etcd -o agentlock-etcd ./cmd/agentlock, next to agentlock), then run this again (nothing was changed)", in.Store.URL)
	}
	if in.Store.Set() {
		if in.HandOver != nil {
			return in.HandOver()
		}
		if err := workspace.CheckStore(ctx, project, in.Store, in.Settings); err != nil {
			return fmt.Errorf("--store %s: %w; this project cannot use it, so it was not recorded (nothing was changed): start the store or correct the command, then run this again", in.Store.URL, err)
		}
	}
	changed, err := workspace.WriteStoreSpec(project, in.Store)
	if err != nil {
		return err
	}
	if changed {
		in.Report.Change("store", file, what, fmt.Sprintf("%-9s %s: %s", "store", file, what))
	}
	return nil
}

// RecordScope records the scope in the repository's common git folder,
// and DenyConflicts beside it, or says what it would do (DryRun, Check).
func (in *Init) RecordScope(ctx context.Context) error {
	if in.Scope == "" && !in.DenyConflictsGiven {
		return nil
	}
	project := workspace.FindProject(in.Dir)
	if project == "" || workspace.GitCommonDir(project) == "" {
		return fmt.Errorf("--scope/--deny-conflicts: %s is in no git worktree (no .git above it)", in.Dir)
	}
	common := workspace.GitCommonDir(project)
	home := filepath.Join(common, workspace.RepoHomeDir)
	if in.Scope != "" {
		on := in.Scope == workspace.ScopeRepository
		if (workspace.RepoHome(project) != "") != on {
			what := "every worktree of the repository shares this home"
			if !on {
				what = "back to a home per checkout (the shared home's locks and registry stay)"
			}
			switch {
			case in.DryRun:
				in.Report.Change("would-set", home, what, fmt.Sprintf("would-set scope %s: %s", home, what))
			case in.Check:
				in.Report.Change("out-of-date", home, what, fmt.Sprintf("out-of-date scope %s: %s", home, what))
			default:
				// The sessions and locks of the home being left would
				// be out of everyone's sight: they finish first.
				if err := scopeInUse(ctx, in.Settings, project); err != nil {
					return err
				}
				if _, err := workspace.SetRepoScope(project, on); err != nil {
					return err
				}
				in.Report.Change("scope", home, what, fmt.Sprintf("%-9s %s: %s", "scope", home, what))
			}
		}
	}
	if in.DenyConflictsGiven && !in.DryRun && !in.Check {
		changed, err := workspace.SetDenyConflicts(common, in.DenyConflicts)
		if err != nil {
			return err
		}
		if changed {
			what := "edits of files changed in another worktree are warned about"
			if in.DenyConflicts {
				what = "edits of files changed in another worktree are denied"
			}
			in.Report.Change("conflicts", home, what, fmt.Sprintf("%-9s %s: %s", "conflicts", home, what))
		}
	}
	return nil
}

// scopeInUse refuses a change of scope while the home being left holds
// locks or working sessions.
func scopeInUse(ctx context.Context, settings workspace.Settings, project string) error {
	ws, err := workspace.Open(ctx, project, settings)
	if err != nil {
		return err
	}
	if ws.Missing() {
		return nil
	}
	err = ws.InUse(ctx)
	var kept *workspace.KeptError
	if errors.As(err, &kept) {
		return fmt.Errorf("--scope: %s stays in use (%s): its sessions would lose sight of each other's locks; finish them, then run this again (nothing was changed)", ws.Home, kept.Reason)
	}
	return err
}

// Install sets the project up: its home (moved to Home when given), the
// agents' files, the record of their writer and, with GitHook, git's
// pre-commit guard; with DryRun or Check it writes nothing and says what
// would change.
func (in *Init) Install(ctx context.Context, p *Project) error {
	if err := in.refuseLeftOut(p); err != nil {
		return err
	}
	if in.GitHook {
		if err := needGitWorkTree(p.Root); err != nil {
			return err
		}
	}
	newHome, err := expandHome(in.Home, in.Settings.UserHome)
	if err != nil {
		return err
	}
	moveHome := newHome != "" && !p.isHome(newHome)
	if moveHome && !in.DryRun && !in.Check {
		if _, err := p.ShareHome(ctx, newHome); err != nil {
			var kept *workspace.KeptError
			if errors.As(err, &kept) {
				fmt.Fprintf(in.ErrOut, "agentlock: the project's home stays %s, not %s: %s; finish its sessions first\n",
					p.Rel(p.Workspace.Home), newHome, kept.Reason)
				return report.ErrReported
			}
			return err
		}
		in.Report.Change("home", p.Workspace.Home, "the project's home (recorded in "+SharedHomeFile+")",
			fmt.Sprintf("%-9s %s: the project's home (recorded in %s)", "home", p.Workspace.Home, SharedHomeFile))
		moveHome = false
	}
	plan, err := p.PlanInstall()
	if err != nil {
		return reportProblems(in.ErrOut, err)
	}
	if !moveHome {
		plan.Notes = append(plan.Notes, p.LegacyNotes()...)
	}
	home := p.Rel(p.Workspace.Home)
	binary, err := in.Binary()
	if err != nil {
		return err
	}
	if binary != "" && !in.Check {
		fmt.Fprintln(in.ErrOut, "agentlock: warning: "+binary)
	}
	switch {
	case in.DryRun:
		if moveHome {
			in.Report.Change("would-use-home", newHome, "", fmt.Sprintf("would use %s as the project's home", newHome))
		} else if plan.HomeMissing {
			in.Report.Change("would-create", home, "registry.md, locks/", fmt.Sprintf("would create %s (registry.md, locks/)", home))
		}
		for _, c := range plan.Changes {
			if diff := integrations.Diff(c, c.Artifact.Label()); diff != "" {
				in.Report.Change("would-change", c.Artifact.Label(), diff, strings.TrimSuffix(diff, "\n"))
			}
		}
		in.notes(plan.Notes)
		if in.GitHook {
			return in.gitHook(p.Root, true, true, false)
		}
		return nil
	case in.Check:
		return in.check(p, plan, moveHome, newHome, home, binary)
	}
	if err := p.CreateHome(ctx); err != nil {
		return err
	}
	if plan.HomeMissing {
		in.Report.Change("created", home, "registry.md, locks/", fmt.Sprintf("created %s (registry.md, locks/)", home))
	}
	for _, c := range plan.Changes {
		if err := p.Write(c); err != nil {
			return err
		}
		in.Report.Change(InstallVerb(c), c.Artifact.Label(), c.Artifact.Purpose,
			fmt.Sprintf("%-9s %s: %s", InstallVerb(c), c.Artifact.Label(), c.Artifact.Purpose))
	}
	if in.RecordWriter {
		if err := p.RecordWriter(in.Writer); err != nil {
			return err
		}
	}
	if in.StaleWrites != "" {
		changed, err := p.Workspace.SetStaleMode(in.StaleWrites)
		if err != nil {
			return err
		}
		if changed {
			file := strings.TrimSuffix(p.Rel(filepath.Join(p.Workspace.Home, workspace.StaleFile)), "/")
			what := "stale writes: " + string(in.StaleWrites)
			in.Report.Change("stale-writes", file, what, fmt.Sprintf("%-9s %s: %s", "set", file, what))
		}
	}
	in.notes(plan.Notes)
	if in.GitHook {
		return in.gitHook(p.Root, true, false, false)
	}
	return nil
}

// refuseLeftOut refuses an init that names an agent it would set up for
// nothing (Kimi Code without --global: its hooks go only in a user-level
// file, written only with the user's consent): exiting 0 having written
// nothing for it would leave the user believing it is set up. Through
// "all" such an agent is only left out, which its notes say.
func (in *Init) refuseLeftOut(p *Project) error {
	left, err := p.LeftOut()
	if err != nil {
		return err
	}
	for _, l := range left {
		if !slices.Contains(in.Named, l.Agent.Name()) {
			continue
		}
		if l.NeedsGlobal {
			return report.LineUsageErrorf("--agent %s: %s keeps its hooks only in user-level files, which init writes only with --global (they gate only projects set up for agentlock), so nothing was changed: run `agentlock %s --global`",
				l.Agent.Name(), l.Agent.Title(), report.ShellWords(in.Command))
		}
		return report.LineUsageErrorf("--agent %s: init sets up nothing for %s here (%s), so nothing was changed",
			l.Agent.Name(), l.Agent.Title(), strings.Join(l.Notes, " "))
	}
	return nil
}

// check is init --check: it reports what is out of date and refuses
// (report.ErrReported) when anything is.
func (in *Init) check(p *Project, plan *Plan, moveHome bool, newHome, home, binary string) error {
	if moveHome {
		in.Report.Change("out-of-date", p.Workspace.Home, "the project's home is not "+newHome,
			fmt.Sprintf("out of date: the project's home is %s, not %s", p.Workspace.Home, newHome))
	}
	if plan.HomeMissing {
		in.Report.Change("missing", home, "", "missing: "+home)
	}
	drift := plan.Drift()
	for _, label := range drift {
		in.Report.Change("out-of-date", label, "", "out of date: "+label)
	}
	// The record only informs: one that cannot be read is said so, and
	// the next init replaces it.
	others, err := p.OtherWriters(in.Writer)
	if err != nil {
		in.notes([]string{err.Error()})
	}
	for _, o := range others {
		in.notes([]string{o.Note()})
	}
	if binary != "" {
		// Not drift of the project's files (CI checks those on machines
		// without agentlock), but the set-up does nothing until it is
		// fixed.
		in.Report.Change("warning", "", binary, "warning: "+binary)
	}
	if moveHome || plan.HomeMissing || len(drift) > 0 {
		return in.errNotUpToDate()
	}
	if in.GitHook {
		if err := in.gitHook(p.Root, true, false, true); err != nil {
			return err
		}
	}
	in.Report.Change("up-to-date", "", "", "up to date")
	return nil
}

// expandHome returns --home as an absolute folder, a relative one taken
// from the working directory ("~/" is the user's home: the shell does not
// expand it in --home=~/x); "" when not given.
func expandHome(dir, userHome string) (string, error) {
	if dir == "" {
		return "", nil
	}
	if rest, ok := strings.CutPrefix(dir, "~/"); ok && userHome != "" {
		dir = filepath.Join(userHome, rest)
	}
	return filepath.Abs(dir)
}

// isHome reports whether dir is already the project's home.
func (p *Project) isHome(dir string) bool {
	if p.Workspace.Shared() {
		return filepath.Clean(p.Workspace.Home) == dir
	}
	return dir == p.marker()
}

// reportProblems says why a plan cannot be applied (a *ProblemsError),
// and that nothing was written; other errors come back as they are.
func reportProblems(errOut io.Writer, err error) error {
	var pe *ProblemsError
	if !errors.As(err, &pe) {
		return err
	}
	for _, problem := range pe.Problems {
		fmt.Fprintf(errOut, "agentlock: %v\n", problem)
		// A read-only file needs its mode changed, not a snippet merged.
		if k := problem.Artifact.Kind; (k == integrations.JSONHooks || k == integrations.TOMLBlock) && !errors.Is(problem, integrations.ErrReadOnly) {
			fmt.Fprintf(errOut, "agentlock: to add the hooks by hand, merge this into %s:\n%s", problem.Artifact.Label(), problem.Artifact.Content)
		}
	}
	fmt.Fprintln(errOut, "agentlock: nothing was written")
	return report.ErrReported
}

// newProjectAllowed refuses to make a project of a folder that holds
// everything: the file system's root or the user's home, where
// .agent-registry is the home of every path outside a project (and where
// every file below would become the project's).
func newProjectAllowed(dir, userHome string) error {
	realHome := userHome
	if real, err := filepath.EvalSymlinks(userHome); err == nil {
		realHome = real
	}
	if filepath.Dir(dir) == dir || (userHome != "" && dir == realHome) {
		return report.LineUsageErrorf("%s is in no git repository, and agentlock will not make it a project: "+
			"every file below it would be coordinated; run agentlock init in the repository or folder your agents work in", dir)
	}
	return nil
}

// Uninit is one run of agentlock uninit.
type Uninit struct {
	Output
	// Agents are the --agent values: none (or "all") takes the whole
	// set-up apart, the project's home included.
	Agents []string
	// GitHook removes git's pre-commit guard: alone, and nothing else.
	GitHook bool
	// DryRun says what would change, and changes nothing.
	DryRun bool
}

// Run takes apart what init set up. open opens the project of the working
// directory for the agents named (see Options.Whole).
func (u *Uninit) Run(ctx context.Context, open func(names []string, whole bool) (*Project, error)) (err error) {
	var homeKept string // why the .gitignore block stays: the home does
	names := u.Agents
	if u.GitHook && len(names) == 0 {
		// uninit --git-hook alone removes the guard and nothing else.
		p, err := open([]string{"all"}, false)
		if err != nil {
			return err
		}
		return u.gitHook(p.Root, false, u.DryRun, false)
	}
	whole := len(names) == 0 || slices.Contains(names, "all")
	if len(names) == 0 {
		names = []string{"all"}
	}
	p, err := open(names, whole)
	if err != nil {
		return err
	}
	plan, err := p.PlanUninstall()
	if err != nil {
		return reportProblems(u.ErrOut, err)
	}
	for _, left := range p.LeftInUserFiles() {
		u.notes([]string{fmt.Sprintf("%s still has agentlock's %s hooks: run agentlock uninit --agent %s --global to remove them",
			left.Path, left.Agent.Title(), left.Agent.Name())})
	}
	apply := func(c integrations.Change) error {
		switch {
		case c.Note != "":
			u.Report.Change("kept", c.Artifact.Label(), c.Note, fmt.Sprintf("kept      %s: %s", c.Artifact.Label(), c.Note))
		case !c.Changed():
		case u.DryRun:
			if diff := integrations.Diff(c, c.Artifact.Label()); diff != "" {
				u.Report.Change("would-change", c.Artifact.Label(), diff, strings.TrimSuffix(diff, "\n"))
			}
		default:
			if err := p.Write(c); err != nil {
				return err
			}
			u.Report.Change(UninstallVerb(c), c.Artifact.Label(), "", fmt.Sprintf("%-9s %s", UninstallVerb(c), c.Artifact.Label()))
		}
		return nil
	}
	// The .gitignore block goes last, and only with the home: while
	// .agent-registry/ stays (locks held, say), `git add -A` must not
	// pick up its lock files and registry.
	var ignore []integrations.Change
	for _, c := range plan.Changes {
		if c.Artifact.Scope == integrations.Project && c.Artifact.Path == ".gitignore" {
			ignore = append(ignore, c)
			continue
		}
		if err := apply(c); err != nil {
			return err
		}
	}
	// The record of who wrote the agents' files goes with them (and
	// before the home, which it would otherwise keep).
	if !u.DryRun {
		if err := p.ForgetWriters(); err != nil {
			return err
		}
	}
	defer func() {
		if err != nil {
			return
		}
		for _, c := range ignore {
			if homeKept != "" && c.Changed() {
				u.Report.Change("kept", c.Artifact.Label(), homeKept, fmt.Sprintf("kept      %s: %s", c.Artifact.Label(), homeKept))
				continue
			}
			if err = apply(c); err != nil {
				return
			}
		}
	}()
	if whole || u.GitHook {
		if err := u.gitHook(p.Root, false, u.DryRun, false); err != nil && u.GitHook {
			return err
		}
	}
	homeKept, err = u.removeHome(ctx, p, whole)
	return err
}

// removeHome removes the project's home after the rest of an uninit (see
// Project.RemoveHome) and reports it; it returns why the .gitignore block
// stays, "" when it goes.
func (u *Uninit) removeHome(ctx context.Context, p *Project, whole bool) (string, error) {
	homeKept := ""
	home, what := p.Rel(p.Workspace.Home), "registry.md, locks/"
	if p.Workspace.Shared() {
		// Only the record of the shared home goes; the home stays.
		home = SharedHomeFile
		what = "the shared home " + p.Workspace.Home + " is kept"
	}
	removed, err := p.RemoveHome(ctx, u.DryRun)
	var kept *workspace.KeptError
	switch {
	case errors.As(err, &kept):
		u.Report.Change("kept", home, kept.Reason, fmt.Sprintf("kept      %s: %s", home, kept.Reason))
		homeKept = "its block stays while " + home + " stays"
	case err != nil:
		return "", err
	case !removed && whole && p.Workspace.Scope() == workspace.ScopeRepository:
		why := repoKeptReason(p.Workspace)
		u.Report.Change("kept", p.Workspace.Home, why, fmt.Sprintf("kept      %s: %s", p.Workspace.Home, why))
	case !removed:
	case u.DryRun:
		u.Report.Change("would-remove", home, what, fmt.Sprintf("would remove %s (%s)", home, what))
	case p.Workspace.Shared():
		u.Report.Change("removed", home, what, fmt.Sprintf("removed   %s (%s)", home, what))
	default:
		u.Report.Change("removed", home, "", "removed   "+home)
	}
	if homeKept == "" && !u.DryRun {
		if _, serr := os.Lstat(p.marker()); serr == nil {
			homeKept = "its block stays while " + workspace.HomeDirName + "/ stays"
		}
	}
	return homeKept, nil
}

// repoKeptReason says why uninit in one worktree keeps the home every
// worktree of the repository shares, and how to end the sharing.
func repoKeptReason(ws *workspace.Workspace) string {
	list, here, _ := ws.Worktrees()
	var others []string
	for _, w := range list {
		if w.Root != here.Root && !w.Gone {
			others = append(others, w.Name(ws.Project))
		}
	}
	who := "every worktree of this repository"
	if len(others) > 0 {
		who = fmt.Sprintf("the other worktrees of this repository too (%s)", strings.Join(others, ", "))
	}
	return "shared by " + who + ": its registry and locks stay for them (this worktree's hooks and instructions are removed); " +
		"`agentlock init --scope checkout` ends the sharing for all of them, and the folder goes with the clone"
}

// needGitWorkTree refuses --git-hook outside a git work tree, before
// anything is written.
func needGitWorkTree(root string) error {
	if inside, _ := githook.Git(root, "rev-parse", "--is-inside-work-tree"); strings.TrimSpace(inside) != "true" {
		return report.LineUsageErrorf("--git-hook installs git's pre-commit guard, and %s is in no git work tree: nothing was written", root)
	}
	return nil
}

// gitHook installs (or removes) the git pre-commit guard in the hooks
// folder git uses for the project at root (core.hooksPath when set), with
// the same dry-run and check behaviour as the rest of init.
func (o Output) gitHook(root string, install, dryRun, check bool) error {
	if err := needGitWorkTree(root); err != nil {
		return err
	}
	dir, err := githook.Git(root, "rev-parse", "--git-path", "hooks")
	if err != nil {
		return fmt.Errorf("find the git hooks folder: %w", err)
	}
	dir = strings.TrimSpace(dir)
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(root, dir)
	}
	var change githook.Change
	if install {
		change, err = githook.PlanInstall(dir, "agentlock")
	} else {
		change, err = githook.PlanUninstall(dir)
	}
	if err != nil {
		return err
	}
	label := change.Path
	if r, rerr := filepath.Rel(root, change.Path); rerr == nil && filepath.IsLocal(r) {
		label = r
	}
	switch {
	case !change.Changed():
		if check {
			o.Report.Change("up-to-date", label, "", "up to date: "+label)
		}
		return nil
	case check:
		o.Report.Change("out-of-date", label, "", "out of date: "+label)
		return o.errNotUpToDate()
	case dryRun:
		verb := "would install"
		if !install {
			verb = "would remove"
		}
		o.Report.Change("would-change", label, "git pre-commit guard", fmt.Sprintf("%s the git pre-commit guard in %s", verb, label))
		return nil
	}
	if err := githook.Write(change); err != nil {
		return err
	}
	verb, what := "installed", "git pre-commit guard: refuses a commit that touches a file another session holds"
	switch {
	case !install && change.New == nil:
		verb, what = "removed", "git pre-commit guard"
	case !install:
		verb, what = "updated", "git pre-commit guard removed from your hook"
	case change.Old != nil && !bytes.Contains(change.Old, []byte(integrations.Marker)):
		verb, what = "updated", "git pre-commit guard chained into your hook"
	}
	o.Report.Change(verb, label, what, fmt.Sprintf("%-9s %s: %s", verb, label, what))
	return nil
}
