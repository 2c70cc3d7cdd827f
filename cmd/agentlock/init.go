package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentlock/agentlock/integrations"
	"github.com/agentlock/agentlock/internal/agents/all"
	"github.com/agentlock/agentlock/internal/agents/manifest"
	"github.com/agentlock/agentlock/internal/githook"
	"github.com/agentlock/agentlock/internal/setup"
	"github.com/agentlock/agentlock/workspace"
)

// InitOptions are the inputs of agentlock init and agentlock uninit.
type InitOptions struct {
	IO     *IOStreams
	Config func() (*config, error)
	// Args is the whole command line, handed over to the etcd build when
	// a store is recorded (see delegate).
	Args []string

	Agents []string // names, comma lists or "all"
	Global bool     // consent to user-wide files
	DryRun bool
	Check  bool   // init only
	Home   string // init only: the home to share (--home); "" keeps the current one
	// GitHook installs (init) or removes (uninit) the git pre-commit guard.
	GitHook bool
	// NoMCP leaves the agents' project MCP files alone (init only).
	NoMCP bool
	// Store is the distributed store to record (init only: --store and
	// its options); StoreGiven is set when --store was given.
	Store      workspace.StoreSpec
	StoreGiven bool
	// Scope is init's --scope: workspace.ScopeRepository shares one home
	// among every worktree of the repository, workspace.ScopeCheckout
	// (the default) keeps one per checkout; "" changes nothing.
	Scope string
	// DenyConflicts is init's --deny-conflicts: a hook denies the edit
	// of a file changed in another worktree instead of warning.
	DenyConflicts bool
	// DenyConflictsGiven is set when --deny-conflicts was given.
	DenyConflictsGiven bool
}

func newCmdInit(f *Factory, runF func(*InitOptions) error) *cobra.Command {
	opts := &InitOptions{IO: f.IO, Config: f.Config, Args: f.Args}
	cmd := &cobra.Command{
		Use:   "init [--agent NAME]... [--global] [--git-hook] [--dry-run | --check]",
		Short: "Set up agentlock in this project, and connect agent CLIs to it",
		Long: `Set up agentlock in the project of the working directory (its git root): create
.agent-registry/ (registry.md and locks/) and keep it out of git with a marked
block in .gitignore. Outside any git repository the working directory itself
becomes the project (its own .agent-registry/), so that the hooks installed
there gate its files; init refuses in your home folder and at /, where every
file below would become the project's.

With --agent (` + strings.Join(all.Names(), ", ") + `, or all; or the path of an agent
manifest, x.toml, docs/integrations/plugins.md), also install what that agent needs:
instructions, the agentlock skill, edit-gating hooks where the harness has them,
and a wrapper script scripts/agentlock-<agent>. Files agentlock owns carry an
"agentlock:generated" marker; inside your files (AGENTS.md, GEMINI.md,
.gitignore) it writes only between its BEGIN/END markers; in JSON settings it
adds only its own hook entries. Everything else is left byte for byte.

Kimi Code reads hooks only from the user-level ~/.kimi-code/config.toml
($KIMI_CODE_HOME/config.toml), for every project: init writes them there, and
Kimi's project files, only with --global (the hooks gate only projects set up for
agentlock and do nothing elsewhere); without it, init writes nothing for Kimi and
says so. Running init twice changes nothing.

With --git-hook, also install git's pre-commit guard ("agentlock guard --staged")
in the folder git runs hooks from (core.hooksPath when set): a commit that
touches a file another live session holds is refused, naming the holder. An
existing shell pre-commit hook is kept: the guard goes in a marked block after
its first line. uninit removes exactly that.

init records which agentlock wrote each agent's files in
.agent-registry/written-by.json; after an upgrade, init --check and doctor say
when another version wrote them, and whether this one writes them differently.

The hooks run the agentlock on PATH: init warns (on stderr; with --check, in
its report) when there is none, or when it is another build than the one
running init. agentlock doctor checks it too.

With --home DIR, the project keeps its registry and locks in DIR, shared with
other projects or with agent-registry 0.2 (whose default home is
~/Desktop/agent-registry): .agent-registry/ then holds only the file "home"
naming DIR, and every agentlock command of the project, the wrappers and
'agentlock env' use DIR. init says when it finds a 0.2 home the project does
not share. --home <project>/.agent-registry goes back to the project's own
home.

With --store etcd://host:2379[,host2:2379]/prefix, the project's locks and
registry live in etcd, for agents on several machines (docs/teams.md): recorded
in .agent-registry/store (mode 0600) with the TLS and auth options (--cacert,
--cert, --key, --user, --password, as etcdctl names them), --repo-id and
--dial-timeout. AGENTLOCK_STORE names a store for every project instead. The etcd
store lives in a second build, agentlock-etcd, that agentlock runs when a store is
configured: install it first (init refuses, changing nothing, when it finds none).
--store files goes back to lock files.`,
		Example: `  agentlock init --agent claude --agent codex
  agentlock init --agent all --dry-run      # show the diff, write nothing
  agentlock init --agent all --check        # exit 1 when anything would change (CI)
  agentlock init --agent kimi --global      # Kimi Code: its hooks are user-level
  agentlock init --agent ./tools/mycli.toml # an agent described by a manifest
  agentlock init --git-hook                 # refuse commits of files others hold
  agentlock init --home ~/Desktop/agent-registry   # share agent-registry 0.2's home

With --scope repository, every git worktree of the repository shares one home,
<git-common-dir>/agentlock/ (never committed, gone with the clone): src/x.py in
one worktree and in another are one lock, and one registry lists the sessions
of every worktree. --scope checkout goes back to a home per checkout. See
docs/worktrees.md.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.DryRun && opts.Check {
				return usagef("--dry-run and --check cannot be used together")
			}
			opts.StoreGiven = cmd.Flags().Changed("store")
			if err := storeFlags(cmd, opts); err != nil {
				return err
			}
			switch opts.Scope {
			case "", workspace.ScopeRepository, workspace.ScopeCheckout:
			default:
				return usagef("--scope %q: want %s or %s", opts.Scope, workspace.ScopeRepository, workspace.ScopeCheckout)
			}
			opts.DenyConflictsGiven = cmd.Flags().Changed("deny-conflicts")
			if runF != nil {
				return runF(opts)
			}
			return initRun(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.StringSliceVar(&opts.Agents, "agent", nil, "agent to connect: "+strings.Join(all.Names(), ", ")+", all, or path/to/agent.toml (repeat or comma-separate)")
	fl.BoolVar(&opts.Global, "global", false, "also write user-level files outside the project (Kimi Code's hooks in ~/.kimi-code/config.toml)")
	fl.BoolVar(&opts.DryRun, "dry-run", false, "print what would change as a diff; write nothing")
	fl.BoolVar(&opts.Check, "check", false, "write nothing; exit 1 when anything would change")
	fl.StringVar(&opts.Home, "home", "", "keep the registry and locks in this folder, shared (agent-registry 0.2's home, say)")
	fl.StringVar(&opts.Scope, "scope", "", "repository: one home for every git worktree of the repository; checkout: one per checkout (the default); see docs/worktrees.md")
	fl.BoolVar(&opts.DenyConflicts, "deny-conflicts", false, "hooks deny the edit of a file changed in another worktree, instead of warning (--deny-conflicts=false: warn)")
	fl.BoolVar(&opts.GitHook, "git-hook", false, "also install git's pre-commit guard (agentlock guard --staged), chained into an existing hook")
	fl.BoolVar(&opts.NoMCP, "no-mcp", false, "do not register agentlock mcp in the agents' project MCP files (.mcp.json, .codex/config.toml, ...)")
	fl.StringVar(&opts.Store.URL, "store", "", "keep locks and registry in etcd: etcd://host:2379[,host2:2379]/prefix (\"files\": back to lock files); see docs/teams.md")
	fl.StringVar(&opts.Store.CACert, "cacert", "", "with --store: the CA bundle that verifies the etcd servers (TLS)")
	fl.StringVar(&opts.Store.Cert, "cert", "", "with --store: this client's TLS certificate")
	fl.StringVar(&opts.Store.Key, "key", "", "with --store: this client's TLS key")
	fl.StringVar(&opts.Store.User, "user", "", "with --store: etcd user name, or name:password")
	fl.StringVar(&opts.Store.Password, "password", "", "with --store: etcd password (kept in .agent-registry/store, mode 0600)")
	fl.StringVar(&opts.Store.RepoID, "repo-id", "", "with --store: the repository's id in the store (default: the normalised origin remote URL)")
	fl.DurationVar(&opts.Store.DialTimeout, "dial-timeout", 0, "with --store: bound on connecting and on each request (default 2s)")
	return cmd
}

// storeFlags refuses the store options without --store, and a --store
// that is not an etcd URL.
func storeFlags(cmd *cobra.Command, opts *InitOptions) error {
	if !opts.StoreGiven {
		for _, name := range []string{"cacert", "cert", "key", "user", "password", "repo-id", "dial-timeout"} {
			if cmd.Flags().Changed(name) {
				return usagef("--%s goes with --store", name)
			}
		}
		return nil
	}
	switch u := opts.Store.URL; {
	case u == "files":
		opts.Store = workspace.StoreSpec{}
	case !strings.HasPrefix(u, "etcd://") || len(u) == len("etcd://"):
		return usagef("--store %q: want etcd://host:2379[,host2:2379]/prefix, or files", u)
	}
	return nil
}

// recordStore records --store in the project's .agent-registry/store, or
// says what it would do (--dry-run, --check).
func recordStore(opts *InitOptions) error {
	wd, err := workspace.WorkDir()
	if err != nil {
		return err
	}
	project := workspace.FindProject(wd)
	if project == "" {
		return fmt.Errorf("--store: no project here (no .git or %s above %s)", workspace.HomeDirName, wd)
	}
	file := filepath.Join(workspace.HomeDirName, workspace.StoreFile)
	what := "the project's store: lock files"
	if opts.Store.Set() {
		what = "the project's store: " + opts.Store.URL
	}
	c, err := opts.Config()
	if err != nil {
		return err
	}
	out := newPrinter(opts.IO, c)
	if opts.DryRun || opts.Check {
		cur, err := workspace.ReadStoreSpec(project)
		if err != nil {
			return err
		}
		cur.Scope = "" // kept, whatever --store says
		if cur != opts.Store {
			verb := "would-set"
			if opts.Check {
				verb = "out-of-date"
			}
			out.change(verb, file, what, fmt.Sprintf("%s %s: %s", verb, file, what))
		}
		return nil
	}
	// Once the store is recorded, every command here (and every hook)
	// refuses to work without the etcd build: refuse first, with nothing
	// changed, rather than leave a project nobody can lock in.
	if opts.Store.Set() && !etcdBuild && !haveEtcdBuild() {
		return fmt.Errorf("--store %s: no agentlock-etcd beside agentlock or on PATH, and without it every command and hook of this project would refuse to work; install it first (go build -tags etcd -o agentlock-etcd ./cmd/agentlock, next to agentlock), then run this again (nothing was changed)", opts.Store.URL)
	}
	changed, err := workspace.WriteStoreSpec(project, opts.Store)
	if err != nil {
		return err
	}
	if changed {
		out.change("store", file, what, fmt.Sprintf("%-9s %s: %s", "store", file, what))
	}
	return nil
}

// recordScope records --scope in the repository's common git folder, and
// --deny-conflicts beside it, or says what it would do (--dry-run,
// --check).
func recordScope(ctx context.Context, opts *InitOptions) error {
	if opts.Scope == "" && !opts.DenyConflictsGiven {
		return nil
	}
	wd, err := workspace.WorkDir()
	if err != nil {
		return err
	}
	project := workspace.FindProject(wd)
	if project == "" || workspace.GitCommonDir(project) == "" {
		return fmt.Errorf("--scope/--deny-conflicts: %s is in no git worktree (no .git above it)", wd)
	}
	c, err := opts.Config()
	if err != nil {
		return err
	}
	out := newPrinter(opts.IO, c)
	common := workspace.GitCommonDir(project)
	home := filepath.Join(common, workspace.RepoHomeDir)
	if opts.Scope != "" {
		on := opts.Scope == workspace.ScopeRepository
		if (workspace.RepoHome(project) != "") != on {
			what := "every worktree of the repository shares this home"
			if !on {
				what = "back to a home per checkout (the shared home's locks and registry stay)"
			}
			switch {
			case opts.DryRun:
				out.change("would-set", home, what, fmt.Sprintf("would-set scope %s: %s", home, what))
			case opts.Check:
				out.change("out-of-date", home, what, fmt.Sprintf("out-of-date scope %s: %s", home, what))
			default:
				// The sessions and locks of the home being left would
				// be out of everyone's sight: they finish first.
				if err := scopeInUse(ctx, c, project); err != nil {
					return err
				}
				if _, err := workspace.SetRepoScope(project, on); err != nil {
					return err
				}
				out.change("scope", home, what, fmt.Sprintf("%-9s %s: %s", "scope", home, what))
			}
		}
	}
	if opts.DenyConflictsGiven && !opts.DryRun && !opts.Check {
		changed, err := workspace.SetDenyConflicts(common, opts.DenyConflicts)
		if err != nil {
			return err
		}
		if changed {
			what := "edits of files changed in another worktree are warned about"
			if opts.DenyConflicts {
				what = "edits of files changed in another worktree are denied"
			}
			out.change("conflicts", home, what, fmt.Sprintf("%-9s %s: %s", "conflicts", home, what))
		}
	}
	return nil
}

func newCmdUninit(f *Factory, runF func(*InitOptions) error) *cobra.Command {
	opts := &InitOptions{IO: f.IO, Config: f.Config, Args: f.Args}
	cmd := &cobra.Command{
		Use:   "uninit [--agent NAME]... [--global] [--dry-run]",
		Short: "Remove what init added",
		Long: `Remove exactly what init added: owned files that carry agentlock's marker, the
managed blocks, and agentlock's hook entries. Your own content in the same
files is left byte for byte; a file that held only agentlock's part is deleted,
with the folders that this leaves empty.

With --agent, only that agent's files. Without it, every agent's, the git
pre-commit guard, .agent-registry/ itself when no lock is held and no session
is working (otherwise it is kept, and said so), and the .gitignore block once
.agent-registry/ is gone (while it stays, the block stays, so git never
commits its files). With --git-hook alone, only the git pre-commit guard.
User-level files (Kimi Code's hooks, and those an older agentlock wrote for
the legacy kimi-cli) are touched only with --global.`,
		Example: `  agentlock uninit --agent codex
  agentlock uninit --dry-run
  agentlock uninit --global`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return uninitRun(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.StringSliceVar(&opts.Agents, "agent", nil, "agent to disconnect: "+strings.Join(all.Names(), ", ")+" or all (default: all, and the project set-up)")
	fl.BoolVar(&opts.Global, "global", false, "also edit user-level files outside the project (Kimi Code's hooks)")
	fl.BoolVar(&opts.DryRun, "dry-run", false, "print what would change as a diff; write nothing")
	fl.BoolVar(&opts.GitHook, "git-hook", false, "remove git's pre-commit guard, and nothing else unless --agent is given (plain uninit removes it too)")
	return cmd
}

// openProject opens the project of the working directory for init
// (names: the --agent values) or uninit.
func openProject(opts *InitOptions, names []string, whole, install bool) (*setup.Project, error) {
	c, err := opts.Config()
	if err != nil {
		return nil, err
	}
	for _, e := range c.AgentErrors {
		fmt.Fprintf(opts.IO.ErrOut, "agentlock: warning: %v\n", e)
	}
	agents, err := c.Agents.Resolve(names)
	if err != nil {
		var fe *manifest.FieldError
		if errors.As(err, &fe) {
			return nil, err
		}
		return nil, usagef("%v", err)
	}
	wd, err := workspace.WorkDir()
	if err != nil {
		return nil, err
	}
	settings := c.Settings
	if install && settings.FindProject(wd) == "" {
		// Outside any git repository the folder itself becomes the
		// project: its home is the one its hooks and commands find, so
		// that what init installs gates what it says it gates.
		if err := newProjectAllowed(wd, settings.UserHome); err != nil {
			return nil, err
		}
		settings.NewProject = wd
	}
	return setup.Open(wd, setup.Options{Settings: settings, Agents: agents, Global: opts.Global, Whole: whole, AgentDirs: c.AgentDirs, MCP: install && !opts.NoMCP})
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
		return &lineUsageError{msg: fmt.Sprintf("%s is in no git repository, and agentlock will not make it a project: "+
			"every file below it would be coordinated; run agentlock init in the repository or folder your agents work in", dir)}
	}
	return nil
}

// reportProblems prints why a plan cannot be applied; nothing was written.
func reportProblems(io *IOStreams, err error) error {
	var pe *setup.ProblemsError
	if !errors.As(err, &pe) {
		return err
	}
	for _, problem := range pe.Problems {
		fmt.Fprintf(io.ErrOut, "agentlock: %v\n", problem)
		// A read-only file needs its mode changed, not a snippet merged.
		if k := problem.Artifact.Kind; (k == integrations.JSONHooks || k == integrations.TOMLBlock) && !errors.Is(problem, integrations.ErrReadOnly) {
			fmt.Fprintf(io.ErrOut, "agentlock: to add the hooks by hand, merge this into %s:\n%s", problem.Artifact.Label(), problem.Artifact.Content)
		}
	}
	fmt.Fprintln(io.ErrOut, "agentlock: nothing was written")
	return errSilentRefusal
}

func initRun(ctx context.Context, opts *InitOptions) error {
	if err := recordScope(ctx, opts); err != nil {
		return err
	}
	if opts.StoreGiven {
		if err := recordStore(opts); err != nil {
			return err
		}
		if opts.Store.Set() && !opts.DryRun && !opts.Check {
			// The rest of init needs the etcd store: the etcd build
			// runs it (and records the same store again, changing
			// nothing).
			delegate(opts.Args)
		}
	}
	p, err := openProject(opts, opts.Agents, true, true)
	if err != nil {
		return err
	}
	if opts.GitHook {
		if err := needGitWorkTree(p.Root); err != nil {
			return err
		}
	}
	c, err := opts.Config()
	if err != nil {
		return err
	}
	out := newPrinter(opts.IO, c)
	newHome, err := homeFlag(opts)
	if err != nil {
		return err
	}
	moveHome := newHome != "" && !sameHome(newHome, p)
	if moveHome && !opts.DryRun && !opts.Check {
		if _, err := p.ShareHome(ctx, newHome); err != nil {
			var kept *workspace.KeptError
			if errors.As(err, &kept) {
				fmt.Fprintf(opts.IO.ErrOut, "agentlock: the project's home stays %s, not %s: %s; finish its sessions first\n",
					p.Rel(p.Workspace.Home), newHome, kept.Reason)
				return errSilentRefusal
			}
			return err
		}
		out.change("home", p.Workspace.Home, "the project's home (recorded in "+sharedHomeFile+")",
			fmt.Sprintf("%-9s %s: the project's home (recorded in %s)", "home", p.Workspace.Home, sharedHomeFile))
		moveHome = false
	}
	plan, err := p.PlanInstall()
	if err != nil {
		return reportProblems(opts.IO, err)
	}
	if !moveHome {
		plan.Notes = append(plan.Notes, p.LegacyNotes()...)
	}
	home := p.Rel(p.Workspace.Home)
	binary, err := checkBinary(opts)
	if err != nil {
		return err
	}
	if binary != "" && !opts.Check {
		fmt.Fprintln(opts.IO.ErrOut, "agentlock: warning: "+binary)
	}
	switch {
	case opts.DryRun:
		if moveHome {
			out.change("would-use-home", newHome, "", fmt.Sprintf("would use %s as the project's home", newHome))
		} else if plan.HomeMissing {
			out.change("would-create", home, "registry.md, locks/", fmt.Sprintf("would create %s (registry.md, locks/)", home))
		}
		for _, c := range plan.Changes {
			if diff := integrations.Diff(c, c.Artifact.Label()); diff != "" {
				out.change("would-change", c.Artifact.Label(), diff, strings.TrimSuffix(diff, "\n"))
			}
		}
		out.notes(plan.Notes)
		if opts.GitHook {
			return gitHookRun(opts, p.Root, true)
		}
		return nil
	case opts.Check:
		if moveHome {
			out.change("out-of-date", p.Workspace.Home, "the project's home is not "+newHome,
				fmt.Sprintf("out of date: the project's home is %s, not %s", p.Workspace.Home, newHome))
		}
		if plan.HomeMissing {
			out.change("missing", home, "", "missing: "+home)
		}
		drift := plan.Drift()
		for _, label := range drift {
			out.change("out-of-date", label, "", "out of date: "+label)
		}
		// The record only informs: one that cannot be read is said so,
		// and the next init replaces it.
		others, err := p.OtherWriters(thisWriter())
		if err != nil {
			out.notes([]string{err.Error()})
		}
		for _, o := range others {
			out.notes([]string{o.Note()})
		}
		if binary != "" {
			// Not drift of the project's files (CI checks those on
			// machines without agentlock), but the set-up does nothing
			// until it is fixed.
			out.change("warning", "", binary, "warning: "+binary)
		}
		if moveHome || plan.HomeMissing || len(drift) > 0 {
			fmt.Fprintln(opts.IO.ErrOut, "agentlock: the set-up is not up to date: run agentlock init with the same options")
			return errSilentRefusal
		}
		if opts.GitHook {
			if err := gitHookRun(opts, p.Root, true); err != nil {
				return err
			}
		}
		out.change("up-to-date", "", "", "up to date")
		return nil
	}
	if err := p.CreateHome(ctx); err != nil {
		return err
	}
	if plan.HomeMissing {
		out.change("created", home, "registry.md, locks/", fmt.Sprintf("created %s (registry.md, locks/)", home))
	}
	for _, c := range plan.Changes {
		if err := p.Write(c); err != nil {
			return err
		}
		out.change(setup.InstallVerb(c), c.Artifact.Label(), c.Artifact.Purpose,
			fmt.Sprintf("%-9s %s: %s", setup.InstallVerb(c), c.Artifact.Label(), c.Artifact.Purpose))
	}
	if len(opts.Agents) > 0 {
		if err := p.RecordWriter(thisWriter()); err != nil {
			return err
		}
	}
	out.notes(plan.Notes)
	if opts.GitHook {
		return gitHookRun(opts, p.Root, true)
	}
	return nil
}

// checkBinary returns, when the agentlock that hooks and agents find on
// PATH is missing or another build than this one, what is wrong and what
// to do, in one line; "" when it is this one. doctor runs the same check.
func checkBinary(opts *InitOptions) (string, error) {
	c, err := opts.Config()
	if err != nil {
		return "", err
	}
	self, err := selfProgram()
	if err != nil {
		return "", err
	}
	b := setup.CheckBinary("agentlock", c.SearchPath, self)
	if b.State == setup.BinarySame {
		return "", nil
	}
	return b.Detail() + "; " + b.Fix(), nil
}

// thisWriter is this build, as the record of who wrote an agent's files
// names it.
func thisWriter() setup.Writer {
	v := buildStamp()
	return setup.Writer{Version: v.Version, Commit: v.Commit}
}

// sharedHomeFile is where a project records the home it shares, for
// messages.
var sharedHomeFile = workspace.HomeDirName + "/" + workspace.SharedHomeFile

// homeFlag returns --home as an absolute folder, a relative one taken from
// the working directory ("~/" is the user's home: the shell does not expand
// it in --home=~/x); "" when not given.
func homeFlag(opts *InitOptions) (string, error) {
	dir := opts.Home
	if dir == "" {
		return "", nil
	}
	c, err := opts.Config()
	if err != nil {
		return "", err
	}
	if rest, ok := strings.CutPrefix(dir, "~/"); ok && c.Settings.UserHome != "" {
		dir = filepath.Join(c.Settings.UserHome, rest)
	}
	return filepath.Abs(dir)
}

// sameHome reports whether dir is already the project's home.
func sameHome(dir string, p *setup.Project) bool {
	own := filepath.Join(p.Root, workspace.HomeDirName)
	if p.Workspace.Shared() {
		return filepath.Clean(p.Workspace.Home) == dir
	}
	return dir == own
}

func uninitRun(ctx context.Context, opts *InitOptions) (err error) {
	var homeKept string // why the .gitignore block stays: the home does
	names := opts.Agents
	if opts.GitHook && len(names) == 0 {
		// uninit --git-hook alone removes the guard and nothing else.
		p, err := openProject(opts, []string{"all"}, false, false)
		if err != nil {
			return err
		}
		return gitHookRun(opts, p.Root, false)
	}
	whole := len(names) == 0 || slices.Contains(names, "all")
	if len(names) == 0 {
		names = []string{"all"}
	}
	p, err := openProject(opts, names, whole, false)
	if err != nil {
		return err
	}
	plan, err := p.PlanUninstall()
	if err != nil {
		return reportProblems(opts.IO, err)
	}
	cfg, err := opts.Config()
	if err != nil {
		return err
	}
	out := newPrinter(opts.IO, cfg)
	for _, left := range p.LeftInUserFiles() {
		out.notes([]string{fmt.Sprintf("%s still has agentlock's %s hooks: run agentlock uninit --agent %s --global to remove them",
			left.Path, left.Agent.Title(), left.Agent.Name())})
	}
	apply := func(c integrations.Change) error {
		switch {
		case c.Note != "":
			out.change("kept", c.Artifact.Label(), c.Note, fmt.Sprintf("kept      %s: %s", c.Artifact.Label(), c.Note))
		case !c.Changed():
		case opts.DryRun:
			if diff := integrations.Diff(c, c.Artifact.Label()); diff != "" {
				out.change("would-change", c.Artifact.Label(), diff, strings.TrimSuffix(diff, "\n"))
			}
		default:
			if err := p.Write(c); err != nil {
				return err
			}
			out.change(setup.UninstallVerb(c), c.Artifact.Label(), "", fmt.Sprintf("%-9s %s", setup.UninstallVerb(c), c.Artifact.Label()))
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
	if !opts.DryRun {
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
				out.change("kept", c.Artifact.Label(), homeKept, fmt.Sprintf("kept      %s: %s", c.Artifact.Label(), homeKept))
				continue
			}
			if err = apply(c); err != nil {
				return
			}
		}
	}()
	if whole || opts.GitHook {
		if err := gitHookRun(opts, p.Root, false); err != nil && opts.GitHook {
			return err
		}
	}
	home, what := p.Rel(p.Workspace.Home), "registry.md, locks/"
	if p.Workspace.Shared() {
		// Only the record of the shared home goes; the home stays.
		home = sharedHomeFile
		what = "the shared home " + p.Workspace.Home + " is kept"
	}
	removed, err := p.RemoveHome(ctx, opts.DryRun)
	var kept *workspace.KeptError
	switch {
	case errors.As(err, &kept):
		out.change("kept", home, kept.Reason, fmt.Sprintf("kept      %s: %s", home, kept.Reason))
		err, homeKept = nil, "its block stays while "+home+" stays"
	case err != nil:
		return err
	case !removed && whole && p.Workspace.Scope() == workspace.ScopeRepository:
		why := repoKeptReason(p.Workspace)
		out.change("kept", p.Workspace.Home, why, fmt.Sprintf("kept      %s: %s", p.Workspace.Home, why))
	case !removed:
	case opts.DryRun:
		out.change("would-remove", home, what, fmt.Sprintf("would remove %s (%s)", home, what))
	case p.Workspace.Shared():
		out.change("removed", home, what, fmt.Sprintf("removed   %s (%s)", home, what))
	default:
		out.change("removed", home, "", "removed   "+home)
	}
	if own := filepath.Join(p.Root, workspace.HomeDirName); homeKept == "" && !opts.DryRun {
		if _, serr := os.Lstat(own); serr == nil {
			homeKept = "its block stays while " + workspace.HomeDirName + "/ stays"
		}
	}
	return nil
}

// needGitWorkTree refuses --git-hook outside a git work tree, before
// anything is written.
func needGitWorkTree(root string) error {
	if inside, _ := git(root, "rev-parse", "--is-inside-work-tree"); strings.TrimSpace(inside) != "true" {
		return &lineUsageError{msg: fmt.Sprintf("--git-hook installs git's pre-commit guard, and %s is in no git work tree: nothing was written", root)}
	}
	return nil
}

// gitHookRun installs (or removes) the git pre-commit guard in the hooks
// folder git uses for the project at root (core.hooksPath when set), with
// the same --dry-run and --check behaviour as the rest of init.
func gitHookRun(opts *InitOptions, root string, install bool) error {
	c, err := opts.Config()
	if err != nil {
		return err
	}
	out := newPrinter(opts.IO, c)
	if err := needGitWorkTree(root); err != nil {
		return err
	}
	dir, err := git(root, "rev-parse", "--git-path", "hooks")
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
		if opts.Check {
			out.change("up-to-date", label, "", "up to date: "+label)
		}
		return nil
	case opts.Check:
		out.change("out-of-date", label, "", "out of date: "+label)
		fmt.Fprintln(opts.IO.ErrOut, "agentlock: the set-up is not up to date: run agentlock init with the same options")
		return errSilentRefusal
	case opts.DryRun:
		verb := "would install"
		if !install {
			verb = "would remove"
		}
		out.change("would-change", label, "git pre-commit guard", fmt.Sprintf("%s the git pre-commit guard in %s", verb, label))
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
	out.change(verb, label, what, fmt.Sprintf("%-9s %s: %s", verb, label, what))
	return nil
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

// scopeInUse refuses a change of scope while the home being left holds
// locks or working sessions.
func scopeInUse(ctx context.Context, c *config, project string) error {
	ws, err := workspace.Open(project, c.Settings)
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
