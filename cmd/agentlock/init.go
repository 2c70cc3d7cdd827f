package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentlock/agentlock/core"
	"github.com/agentlock/agentlock/integrations"
	"github.com/agentlock/agentlock/integrations/all"
	"github.com/agentlock/agentlock/templates"
)

// hookFingerprint identifies agentlock's entries in a harness's JSON hook
// settings: every generated hook command runs "agentlock hook ...".
const hookFingerprint = "agentlock hook "

type initOptions struct {
	agents []string
	global bool
	dryRun bool
	check  bool
}

func newInitCmd(f *factory) *cobra.Command {
	opts := initOptions{}
	cmd := &cobra.Command{
		Use:   "init [--agent NAME]... [--global] [--dry-run | --check]",
		Short: "Set up agentlock in this project, and connect agent CLIs to it",
		Long: `Set up agentlock in the project of the working directory (its git root): create
.agent-registry/ (registry.md and locks/) and keep it out of git with a marked
block in .gitignore.

With --agent (` + strings.Join(all.Names(), ", ") + `, or all), also install what that agent needs:
instructions, the agentlock skill, edit-gating hooks where the harness has them,
and a wrapper script scripts/agentlock-<agent>. Files agentlock owns carry an
"agentlock:generated" marker; inside your files (AGENTS.md, GEMINI.md,
.gitignore) it writes only between its BEGIN/END markers; in JSON settings it
adds only its own hook entries. Everything else is left byte for byte.

Kimi reads hooks only from the user-wide ~/.kimi*/config.toml: they are added
there only with --global. Running init twice changes nothing.`,
		Example: `  agentlock init --agent claude --agent codex
  agentlock init --agent all --dry-run      # show the diff, write nothing
  agentlock init --agent all --check        # exit 1 when anything would change (CI)
  agentlock init --agent kimi --global      # also add Kimi's user-wide hooks`,
		Args: cobra.NoArgs,
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			return initRun(f, cmd, opts)
		}),
	}
	fl := cmd.Flags()
	fl.StringSliceVar(&opts.agents, "agent", nil, "agent to connect: "+strings.Join(all.Names(), ", ")+" or all (repeat or comma-separate)")
	fl.BoolVar(&opts.global, "global", false, "also write user-wide files outside the project (Kimi's hooks in ~/.kimi*/config.toml)")
	fl.BoolVar(&opts.dryRun, "dry-run", false, "print what would change as a diff; write nothing")
	fl.BoolVar(&opts.check, "check", false, "write nothing; exit 1 when anything would change")
	cmd.MarkFlagsMutuallyExclusive("dry-run", "check")
	return cmd
}

func newUninitCmd(f *factory) *cobra.Command {
	opts := initOptions{}
	cmd := &cobra.Command{
		Use:   "uninit [--agent NAME]... [--global] [--dry-run]",
		Short: "Remove what init added",
		Long: `Remove exactly what init added: owned files that carry agentlock's marker, the
managed blocks, and agentlock's hook entries. Your own content in the same
files is left byte for byte; a file that held only agentlock's part is deleted,
with the folders that this leaves empty.

With --agent, only that agent's files. Without it, every agent's, the
.gitignore block, and .agent-registry/ itself when no lock is held and no
session is working (otherwise it is kept, and said so). User-wide files (Kimi's
hooks) are touched only with --global.`,
		Example: `  agentlock uninit --agent codex
  agentlock uninit --dry-run
  agentlock uninit --global`,
		Args: cobra.NoArgs,
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			return uninitRun(f, cmd, opts)
		}),
	}
	fl := cmd.Flags()
	fl.StringSliceVar(&opts.agents, "agent", nil, "agent to disconnect: "+strings.Join(all.Names(), ", ")+" or all (default: all, and the project set-up)")
	fl.BoolVar(&opts.global, "global", false, "also edit user-wide files outside the project (Kimi's hooks)")
	fl.BoolVar(&opts.dryRun, "dry-run", false, "print what would change as a diff; write nothing")
	return cmd
}

// setup is what init and uninit work on.
type setup struct {
	c        config
	root     string // real project root
	engine   integrations.Engine
	agents   []integrations.Agent
	env      integrations.Env
	home     string // agentlock home: .agent-registry
	ownHome  bool   // the home is the project's own .agent-registry (not configured elsewhere)
	registry *core.Registry
	lockDir  string
}

func newSetup(cmd *cobra.Command, names []string, global bool) (setup, error) {
	c, err := loadConfig(cmd)
	if err != nil {
		return setup{}, err
	}
	wd, err := workDir()
	if err != nil {
		return setup{}, err
	}
	root := core.FindProject(wd)
	if root == "" {
		root = wd
	}
	s := setup{c: c, root: root}
	if s.agents, err = selectAgents(names); err != nil {
		return setup{}, err
	}
	userHome := ""
	if c.UserHome != "" {
		if userHome, err = filepath.EvalSymlinks(c.UserHome); err != nil {
			userHome = c.UserHome
		}
	}
	s.env = integrations.Env{Bin: "agentlock", UserHome: userHome, Global: global, Exists: func(p string) bool {
		_, err := os.Stat(p)
		return err == nil
	}}
	s.engine = integrations.Engine{ProjectRoot: root, UserHome: userHome, Fingerprint: hookFingerprint}
	if s.home, err = c.homeFor(root); err != nil {
		return setup{}, err
	}
	s.ownHome = s.home == filepath.Join(root, core.HomeDirName)
	if s.registry, err = c.registryFor(root); err != nil {
		return setup{}, err
	}
	if s.lockDir, err = c.lockDirFor(root); err != nil {
		return setup{}, err
	}
	return s, nil
}

// selectAgents resolves --agent values: names, comma lists, "all".
func selectAgents(names []string) ([]integrations.Agent, error) {
	var out []integrations.Agent
	for _, name := range names {
		if name == "all" {
			return all.Agents(), nil
		}
		a, ok := all.Lookup(name)
		if !ok {
			return nil, usagef("unknown agent %q (known: %s, all)", name, strings.Join(all.Names(), ", "))
		}
		if !slices.ContainsFunc(out, func(b integrations.Agent) bool { return b.Name() == name }) {
			out = append(out, a)
		}
	}
	return out, nil
}

// plan returns the artifacts: the .gitignore block (when the home is the
// project's own) and each selected agent's.
func (s setup) plan(withProject bool) ([]integrations.Artifact, []string, error) {
	var arts []integrations.Artifact
	var notes []string
	if withProject && s.ownHome {
		a, err := integrations.Gitignore(s.env.Bin)
		if err != nil {
			return nil, nil, err
		}
		arts = append(arts, a)
	}
	for _, agent := range s.agents {
		a, n, err := agent.Plan(s.env)
		if err != nil {
			return nil, nil, fmt.Errorf("plan %s: %w", agent.Name(), err)
		}
		arts = append(arts, a...)
		for _, note := range n {
			notes = append(notes, agent.Title()+": "+note)
		}
	}
	return arts, notes, nil
}

// label is how a change's file is shown: relative to the project, or
// under ~ for user files.
func (s setup) label(c integrations.Change) string {
	if c.Artifact.Scope == integrations.User {
		return "~/" + c.Artifact.Path
	}
	return c.Artifact.Path
}

// changes computes every artifact's change with compute. All problems are
// reported together; with any, nothing is written.
func (s setup) changes(f *factory, arts []integrations.Artifact, compute func(integrations.Artifact) (integrations.Change, error)) ([]integrations.Change, error) {
	var out []integrations.Change
	failed := false
	for _, a := range arts {
		c, err := compute(a)
		if err != nil {
			failed = true
			fmt.Fprintf(f.ErrOut, "agentlock: %v\n", err)
			if a.Kind == integrations.JSONHooks {
				fmt.Fprintf(f.ErrOut, "agentlock: to add the hooks by hand, merge this into %s:\n%s", a.Path, a.Content)
			}
			continue
		}
		out = append(out, c)
	}
	if failed {
		fmt.Fprintln(f.ErrOut, "agentlock: nothing was written")
		return nil, errSilentRefusal
	}
	return out, nil
}

func initRun(f *factory, cmd *cobra.Command, opts initOptions) error {
	s, err := newSetup(cmd, opts.agents, opts.global)
	if err != nil {
		return err
	}
	arts, notes, err := s.plan(true)
	if err != nil {
		return err
	}
	changes, err := s.changes(f, arts, s.engine.Install)
	if err != nil {
		return err
	}
	homeMissing := s.homeMissing()
	switch {
	case opts.dryRun:
		if homeMissing {
			fmt.Fprintf(f.Out, "would create %s (registry.md, locks/)\n", s.rel(s.home))
		}
		for _, c := range changes {
			fmt.Fprint(f.Out, integrations.Diff(c, s.label(c)))
		}
		return nil
	case opts.check:
		drift := homeMissing
		if homeMissing {
			fmt.Fprintf(f.Out, "missing: %s\n", s.rel(s.home))
		}
		for _, c := range changes {
			if c.Changed() {
				drift = true
				fmt.Fprintf(f.Out, "out of date: %s\n", s.label(c))
			}
		}
		if drift {
			fmt.Fprintln(f.ErrOut, "agentlock: the set-up is not up to date: run agentlock init with the same options")
			return errSilentRefusal
		}
		fmt.Fprintln(f.Out, "up to date")
		return nil
	}
	if err := s.createHome(); err != nil {
		return err
	}
	if homeMissing {
		fmt.Fprintf(f.Out, "created %s (registry.md, locks/)\n", s.rel(s.home))
	}
	for _, c := range changes {
		verb := "unchanged"
		switch {
		case !c.Existed:
			verb = "created"
		case c.Changed():
			verb = "updated"
		}
		if err := s.engine.Write(c); err != nil {
			return err
		}
		fmt.Fprintf(f.Out, "%-9s %s: %s\n", verb, s.label(c), c.Artifact.Purpose)
	}
	for _, n := range notes {
		fmt.Fprintln(f.Out, "note: "+n)
	}
	return nil
}

func uninitRun(f *factory, cmd *cobra.Command, opts initOptions) error {
	names := opts.agents
	whole := len(names) == 0 || slices.Contains(names, "all")
	if len(names) == 0 {
		names = []string{"all"}
	}
	s, err := newSetup(cmd, names, opts.global)
	if err != nil {
		return err
	}
	arts, _, err := s.plan(whole)
	if err != nil {
		return err
	}
	changes, err := s.changes(f, arts, s.engine.Uninstall)
	if err != nil {
		return err
	}
	if !opts.global {
		s.remindUserFiles(f)
	}
	for _, c := range changes {
		switch {
		case c.Note != "":
			fmt.Fprintf(f.Out, "kept      %s: %s\n", s.label(c), c.Note)
		case !c.Changed():
		case opts.dryRun:
			fmt.Fprint(f.Out, integrations.Diff(c, s.label(c)))
		default:
			if err := s.engine.Write(c); err != nil {
				return err
			}
			verb := "updated"
			if c.Delete {
				verb = "removed"
			}
			fmt.Fprintf(f.Out, "%-9s %s\n", verb, s.label(c))
		}
	}
	if whole && s.ownHome && !s.homeMissing() {
		return s.removeHome(f, opts.dryRun)
	}
	return nil
}

// remindUserFiles says which user-wide files still hold agentlock's part
// when uninit runs without --global (Kimi's hooks), instead of touching them.
func (s setup) remindUserFiles(f *factory) {
	env := s.env
	env.Global = true
	for _, agent := range s.agents {
		arts, _, err := agent.Plan(env)
		if err != nil {
			continue
		}
		for _, a := range arts {
			if a.Scope != integrations.User {
				continue
			}
			if c, err := s.engine.Uninstall(a); err == nil && c.Changed() {
				fmt.Fprintf(f.Out, "note: ~/%s still has agentlock's %s hooks: run agentlock uninit --agent %s --global to remove them\n",
					a.Path, agent.Title(), agent.Name())
			}
		}
	}
}

func (s setup) rel(path string) string {
	if r, err := filepath.Rel(s.root, path); err == nil && filepath.IsLocal(r) {
		return r + "/"
	}
	return path
}

func (s setup) homeMissing() bool {
	for _, p := range []string{s.registry.Path, s.lockDir} {
		if _, err := os.Stat(p); err != nil {
			return true
		}
	}
	return false
}

// createHome creates the lock folder and an empty registry (with its
// protocol block) when they are missing; an existing registry is kept.
func (s setup) createHome() error {
	if err := os.MkdirAll(s.lockDir, 0o700); err != nil {
		return fmt.Errorf("create %s: %w", s.lockDir, err)
	}
	reg := s.registry.Path
	if err := os.MkdirAll(filepath.Dir(reg), 0o700); err != nil {
		return fmt.Errorf("create %s: %w", filepath.Dir(reg), err)
	}
	empty, err := templates.EmptyRegistry()
	if err != nil {
		return err
	}
	out, err := os.OpenFile(reg, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("create %s: %w", reg, err)
	}
	if _, err := out.Write(empty); err != nil {
		out.Close()
		return fmt.Errorf("write %s: %w", reg, err)
	}
	return out.Close()
}

// removeHome deletes the project's .agent-registry when nothing depends on
// it: no lock held, no session working. Lock files are otherwise never
// deleted; this is the project's teardown, refused while agents work.
func (s setup) removeHome(f *factory, dryRun bool) error {
	states, problems, err := s.c.locker().List(s.lockDir)
	if err != nil {
		return err
	}
	var held []string
	for _, st := range states {
		if st.Locked() {
			held = append(held, st.Path+" ("+st.Owner+")")
		}
	}
	doc, regErr := s.registry.Load()
	var working []string
	for _, sess := range doc.Agents {
		if sess.Status == core.StatusWorking {
			working = append(working, sess.SessionID)
		}
	}
	switch {
	case len(held) > 0:
		fmt.Fprintf(f.Out, "kept      %s: locks are held: %s\n", s.rel(s.home), strings.Join(held, ", "))
	case len(working) > 0:
		fmt.Fprintf(f.Out, "kept      %s: sessions are working: %s (finish them first)\n", s.rel(s.home), strings.Join(working, ", "))
	case len(problems) > 0 || regErr != nil:
		fmt.Fprintf(f.Out, "kept      %s: it holds files agentlock cannot read: %v\n", s.rel(s.home), errors.Join(append(problems, regErr)...))
	case dryRun:
		fmt.Fprintf(f.Out, "would remove %s (registry.md, locks/)\n", s.rel(s.home))
	default:
		if err := os.RemoveAll(s.home); err != nil {
			return fmt.Errorf("remove %s: %w", s.home, err)
		}
		fmt.Fprintf(f.Out, "removed   %s\n", s.rel(s.home))
	}
	return nil
}
