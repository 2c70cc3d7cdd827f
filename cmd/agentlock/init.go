package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentlock/agentlock/integrations/all"
	"github.com/agentlock/agentlock/integrations/manifest"
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
	// StaleWrites is init's --stale-writes: what a write based on a stale
	// read gets (deny, warn, off); "" leaves the project's as it is.
	StaleWrites string
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
agentlock and do nothing elsewhere). Without it, init --agent kimi changes nothing
and exits 2 naming the command to run; --agent all leaves Kimi out and says why.
Running init twice changes nothing.

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
--store files goes back to lock files.

With --scope repository, every git worktree of the repository shares one home,
<git-common-dir>/agentlock/ (never committed, gone with the clone): src/x.py in
one worktree and in another are one lock, and one registry lists the sessions
of every worktree. --scope checkout goes back to a home per checkout. See
docs/worktrees.md.`,
		Example: `  agentlock init --agent claude --agent codex
  agentlock init --agent all --dry-run      # show the diff, write nothing
  agentlock init --agent all --check        # exit 1 when anything would change (CI)
  agentlock init --agent kimi --global      # Kimi Code: its hooks are user-level
  agentlock init --agent ./tools/mycli.toml # an agent described by a manifest
  agentlock init --git-hook                 # refuse commits of files others hold
  agentlock init --scope repository         # one home for every git worktree
  agentlock init --home ~/Desktop/agent-registry   # share agent-registry 0.2's home`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.DryRun && opts.Check {
				return usagef("--dry-run and --check cannot be used together")
			}
			opts.StoreGiven = cmd.Flags().Changed("store")
			if err := storeFlags(cmd, opts); err != nil {
				return err
			}
			if err := setup.CheckScope(opts.Scope); err != nil {
				return err
			}
			opts.DenyConflictsGiven = cmd.Flags().Changed("deny-conflicts")
			if cmd.Flags().Changed("stale-writes") {
				mode, err := workspace.ParseStaleMode("--stale-writes", opts.StaleWrites)
				if err != nil || mode == "" {
					return usagef("--stale-writes %q: want deny, warn or off", opts.StaleWrites)
				}
				opts.StaleWrites = string(mode)
			}
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
	fl.StringVar(&opts.StaleWrites, "stale-writes", "", "what a write based on a stale read gets: deny (the default), warn or off (docs/read-versions.md)")
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

// storeFlags reads the store flags (setup.ParseStore).
func storeFlags(cmd *cobra.Command, opts *InitOptions) error {
	var err error
	opts.Store, err = setup.ParseStore(opts.Store, opts.StoreGiven, cmd.Flags().Changed)
	return err
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

// openProject opens the project of the working directory wd for init
// (names: the --agent values) or uninit.
func openProject(opts *InitOptions, wd string, names []string, whole, install bool) (*setup.Project, error) {
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
	return setup.Open(wd, setup.Options{Settings: c.Settings, Agents: agents, Global: opts.Global, Whole: whole,
		AgentDirs: c.AgentDirs, MCP: install && !opts.NoMCP, NewProject: install})
}

// setupOutput is where package setup reports init's and uninit's steps.
func setupOutput(opts *InitOptions, c *config) setup.Output {
	return setup.Output{Report: newPrinter(opts.IO, c), ErrOut: opts.IO.ErrOut}
}

func initRun(ctx context.Context, opts *InitOptions) error {
	c, wd, err := configDir(opts.Config)
	if err != nil {
		return err
	}
	in := &setup.Init{Output: setupOutput(opts, c), Settings: c.Settings, Dir: wd,
		DryRun: opts.DryRun, Check: opts.Check, Home: opts.Home, GitHook: opts.GitHook,
		Store: opts.Store, StoreGiven: opts.StoreGiven, Scope: opts.Scope,
		DenyConflicts: opts.DenyConflicts, DenyConflictsGiven: opts.DenyConflictsGiven, StaleWrites: workspace.StaleMode(opts.StaleWrites),
		Writer: thisWriter(), RecordWriter: len(opts.Agents) > 0, Named: opts.Agents, Command: opts.Args,
		Binary:    func() (string, error) { return checkBinary(c) },
		EtcdBuild: func() bool { return workspace.HaveEtcdBuild(os.Environ()) }}
	if !workspace.EtcdBuild {
		// The etcd build checks the store, records it and runs the
		// rest of init, which needs it.
		in.HandOver = func() error { return handOver(thisProcess(opts.Args), nil) }
	}
	if err := in.RecordScope(ctx); err != nil {
		return err
	}
	if opts.StoreGiven {
		if err := in.RecordStore(ctx); err != nil {
			return err
		}
	}
	p, err := openProject(opts, wd, opts.Agents, true, true)
	if err != nil {
		return err
	}
	return in.Install(ctx, p)
}

func uninitRun(ctx context.Context, opts *InitOptions) error {
	c, wd, err := configDir(opts.Config)
	if err != nil {
		return err
	}
	u := &setup.Uninit{Output: setupOutput(opts, c), Agents: opts.Agents, GitHook: opts.GitHook, DryRun: opts.DryRun}
	return u.Run(ctx, func(names []string, whole bool) (*setup.Project, error) {
		return openProject(opts, wd, names, whole, false)
	})
}

// checkBinary returns, when the agentlock that hooks and agents find on
// PATH is missing or another build than this one, what is wrong and what
// to do, in one line; "" when it is this one. doctor runs the same check.
func checkBinary(c *config) (string, error) {
	self, err := selfProgram()
	if err != nil {
		return "", err
	}
	return setup.CheckBinary("agentlock", c.SearchPath, self).Problem(), nil
}

// thisWriter is this build, as the record of who wrote an agent's files
// names it.
func thisWriter() setup.Writer {
	v := buildStamp()
	return setup.Writer{Version: v.Version, Commit: v.Commit}
}
