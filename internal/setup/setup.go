// Package setup sets a project up for agentlock and takes it apart again:
// it joins the project's home (registry and lock folder, package
// workspace) with the files that connect each agent CLI (package
// integrations). It decides what init and uninit change; front ends only
// show it.
package setup

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/agentlock/agentlock/integrations"
	"github.com/agentlock/agentlock/workspace"
)

// Options choose what a Project covers.
type Options struct {
	// Settings locate the workspace.
	Settings workspace.Settings
	// Agents are the agent CLIs to connect or disconnect.
	Agents []integrations.Agent
	// Global is the user's consent to user-wide files (Kimi's hooks).
	Global bool
	// Whole includes the project's own set-up: the .gitignore block, and
	// for uninit the home itself.
	Whole bool
	// Bin is the command the generated files run; empty means "agentlock".
	Bin string
	// AgentDirs are agent CLIs' user folders moved by their variables
	// (integrations.Env.AgentDirs).
	AgentDirs map[string]string
	// MCP registers agentlock mcp in the agents' project MCP files
	// (integrations.Setup.MCP).
	MCP bool
	// NewProject makes a folder outside any project a project of its own
	// (init): its home is then the one its hooks and commands find, so
	// that what init installs gates what it says it gates. The file
	// system's root and the user's home are refused.
	NewProject bool
	// WithoutStore locates the project's workspace without opening its
	// distributed store (workspace.Locate), which Open refuses when it
	// cannot be used: for the checks that do not need the store (doctor).
	WithoutStore bool
}

// Project is a project being set up or taken apart.
type Project struct {
	// Root is the project's real root: the project of the folder it was
	// opened from, or that folder itself when it is in none.
	Root      string
	Workspace *workspace.Workspace
	whole     bool
	set       integrations.Setup
	settings  workspace.Settings
}

// Open returns the project of the real folder dir.
func Open(dir string, opts Options) (*Project, error) {
	if opts.NewProject && opts.Settings.FindProject(dir) == "" {
		if err := newProjectAllowed(dir, opts.Settings.UserHome); err != nil {
			return nil, err
		}
		opts.Settings.NewProject = dir
	}
	root := opts.Settings.FindProject(dir)
	if root == "" {
		root = dir
	}
	// Set-up runs to its end once started (init, uninit, doctor are not
	// cancelled half-way): opening finishes exited sessions unbounded by
	// a caller's context, bounded by the lock waits.
	open := func(root string, s workspace.Settings) (*workspace.Workspace, error) {
		return workspace.Open(context.Background(), root, s)
	}
	if opts.WithoutStore {
		open = workspace.Locate
	}
	ws, err := open(root, opts.Settings)
	if err != nil {
		return nil, err
	}
	userHome := opts.Settings.UserHome
	if real, err := filepath.EvalSymlinks(userHome); err == nil {
		userHome = real
	}
	bin := opts.Bin
	if bin == "" {
		bin = "agentlock"
	}
	env := integrations.Env{Bin: bin, UserHome: userHome, Global: opts.Global, AgentDirs: opts.AgentDirs, Exists: func(p string) bool {
		_, err := os.Stat(p)
		return err == nil
	}}
	engine := integrations.Engine{ProjectRoot: root, UserHome: userHome, Fingerprint: integrations.HookFingerprint}
	set := integrations.Setup{Engine: engine, Env: env, Agents: opts.Agents, MCP: opts.MCP}
	p := &Project{Root: root, Workspace: ws, whole: opts.Whole, set: set, settings: opts.Settings}
	p.gitignore()
	return p, nil
}

// gitignore includes the .gitignore block when the project's
// .agent-registry folder is its own: its home, or the record of the home
// it shares (a path on this machine, not for the repository).
func (p *Project) gitignore() {
	p.set.Gitignore = p.whole && (p.Workspace.OwnHome() || p.Workspace.Shared())
}

// ShareHome makes dir (absolute) the project's home, shared with other
// projects or with agent-registry 0.2 (see workspace.ShareHome), and opens
// the project's workspace again on it. It reports whether the project's
// home changed.
func (p *Project) ShareHome(ctx context.Context, dir string) (bool, error) {
	changed, err := workspace.ShareHome(ctx, p.Root, dir, p.settings)
	if err != nil || !changed {
		return changed, err
	}
	ws, err := workspace.Open(ctx, p.Root, p.settings)
	if err != nil {
		return true, err
	}
	p.Workspace = ws
	p.gitignore()
	return true, nil
}

// LegacyNotes tells, for init, where agent-registry 0.2 keeps its state
// when the project does not share it: 0.2's default home, or the folders
// that AGENT_REGISTRY_LOCK_DIR and AGENT_REGISTRY_PATH name (which 0.2
// reads too) when they form a home. Agents of 0.2 and of agentlock that use
// different lock folders do not see each other's locks.
func (p *Project) LegacyNotes() []string {
	var notes []string
	ws := p.Workspace
	persistent := ws.Home // the home every agent of the project uses, whatever this shell sets
	if legacy := workspace.LegacyHome(p.settings.UserHome); legacy != "" && !workspace.SameFolder(legacy, persistent) {
		notes = append(notes, fmt.Sprintf("agent-registry 0.2 keeps its registry and locks in %s (its default home), "+
			"and its agents do not see this project's locks in %s: to share one home, run "+
			"'agentlock init --home %s' (see docs/mixed-fleet.md)", legacy, p.Rel(persistent), legacy))
	}
	if dir := p.settings.EnvHome(); dir != "" && !workspace.SameFolder(dir, persistent) {
		notes = append(notes, fmt.Sprintf("AGENT_REGISTRY_LOCK_DIR or AGENT_REGISTRY_PATH name %s, which agent-registry 0.2 "+
			"reads too, but only where they are set: to make it the home of every agent of this project, run "+
			"'agentlock init --home %s' (see docs/mixed-fleet.md)", dir, dir))
	}
	return notes
}

// Plan is what init or uninit would change.
type Plan struct {
	// Changes are the files' changes, in the order of the artifacts.
	Changes []integrations.Change
	// Notes are for the user (hooks left out for want of consent, ...).
	Notes []string
	// HomeMissing tells that the home (registry or lock folder) does not
	// exist.
	HomeMissing bool
}

// ProblemsError lists the artifacts whose change cannot be computed. With
// any of them, nothing is written.
type ProblemsError struct {
	Problems []*integrations.ChangeError
}

func (e *ProblemsError) Error() string {
	errs := make([]error, len(e.Problems))
	for i, p := range e.Problems {
		errs[i] = p
	}
	return errors.Join(errs...).Error()
}

// LeftOut is an agent of the set-up that init would set up for nothing
// here: its plan is empty (Kimi Code without consent to user-level files).
type LeftOut struct {
	Agent integrations.Agent
	// Notes are what the agent's plan says about it.
	Notes []string
	// NeedsGlobal tells that consent to user-level files (init --global)
	// would set it up.
	NeedsGlobal bool
}

// LeftOut returns the agents of the set-up whose plan for init is empty.
func (p *Project) LeftOut() ([]LeftOut, error) {
	var out []LeftOut
	for _, a := range p.set.Agents {
		arts, notes, err := a.Plan(p.set.Env)
		if err != nil {
			return nil, fmt.Errorf("plan %s: %w", a.Name(), err)
		}
		if len(arts) > 0 {
			continue
		}
		l := LeftOut{Agent: a, Notes: notes}
		if !p.set.Env.Global {
			env := p.set.Env
			env.Global = true
			withConsent, _, err := a.Plan(env)
			l.NeedsGlobal = err == nil && len(withConsent) > 0
		}
		out = append(out, l)
	}
	return out, nil
}

// PlanInstall computes what init changes.
func (p *Project) PlanInstall() (*Plan, error) { return p.plan(p.set, p.set.Engine.Install) }

// PlanUninstall computes what uninit changes.
func (p *Project) PlanUninstall() (*Plan, error) {
	set := p.set
	set.Env.Removing = true
	return p.plan(set, set.Engine.Uninstall)
}

func (p *Project) plan(set integrations.Setup, compute func(integrations.Artifact) (integrations.Change, error)) (*Plan, error) {
	arts, notes, err := set.Plan()
	if err != nil {
		return nil, err
	}
	changes, problems := set.Changes(arts, compute)
	if len(problems) > 0 {
		pe := &ProblemsError{}
		for _, e := range problems {
			var ce *integrations.ChangeError
			if errors.As(e, &ce) {
				pe.Problems = append(pe.Problems, ce)
			}
		}
		return nil, pe
	}
	return &Plan{Changes: changes, Notes: notes, HomeMissing: p.Workspace.Missing() || !p.marked()}, nil
}

// Drift returns the labels of the files that init would change, and
// whether the home is missing: a set-up is up to date when both are empty.
func (pl *Plan) Drift() []string {
	var out []string
	for _, c := range pl.Changes {
		if c.Changed() {
			out = append(out, c.Artifact.Label())
		}
	}
	return out
}

// CreateHome creates the home (lock folder and registry) when missing, and
// the project's .agent-registry folder, which marks a folder outside any
// git repository as a project (Settings.NewProject).
func (p *Project) CreateHome(ctx context.Context) error {
	if !p.marked() {
		if err := os.MkdirAll(p.marker(), 0o700); err != nil {
			return fmt.Errorf("create %s: %w", p.marker(), err)
		}
	}
	return p.Workspace.Setup(ctx)
}

// marker is the project's .agent-registry folder.
func (p *Project) marker() string { return filepath.Join(p.Root, workspace.HomeDirName) }

// marked reports whether the project is one for every command: it is in a
// git repository or has its .agent-registry folder. A folder that init
// sets up outside any repository is not, until CreateHome.
func (p *Project) marked() bool {
	return p.settings.FindProject(p.Root) != ""
}

// Write applies one change of a plan.
func (p *Project) Write(c integrations.Change) error { return p.set.Engine.Write(c) }

// LeftInUserFiles names the user-wide files that still hold agentlock's
// part when the set-up has no consent to touch them.
func (p *Project) LeftInUserFiles() []integrations.LeftFile {
	if p.set.Env.Global {
		return nil
	}
	return p.set.LeftInUserFiles()
}

// RemoveHome removes the project's own home after an uninit of the whole
// set-up, when nothing depends on it (see workspace.Teardown). It reports
// false when there is nothing to remove; a *workspace.KeptError says why
// the home was kept.
//
// A project that shares a home loses only its record of it (see
// workspace.Workspace.Unshare); the shared home is never removed.
func (p *Project) RemoveHome(ctx context.Context, dryRun bool) (bool, error) {
	if p.whole && p.Workspace.Shared() {
		if err := p.Workspace.Unshare(ctx, dryRun); err != nil {
			return false, err
		}
		return true, nil
	}
	if !p.whole || !p.Workspace.OwnHome() || p.Workspace.Missing() {
		return false, nil
	}
	if err := p.Workspace.Teardown(ctx, dryRun); err != nil {
		return false, err
	}
	return true, nil
}

// Rel shows a path of the project relative to its root, as a folder.
func (p *Project) Rel(path string) string {
	if r, err := filepath.Rel(p.Root, path); err == nil && filepath.IsLocal(r) {
		return r + "/"
	}
	return path
}

// InstallVerb is how init reports a change: created, updated or unchanged.
func InstallVerb(c integrations.Change) string {
	switch {
	case !c.Existed:
		return "created"
	case c.Changed():
		return "updated"
	}
	return "unchanged"
}

// UninstallVerb is how uninit reports a change: removed or updated.
func UninstallVerb(c integrations.Change) string {
	if c.Delete {
		return "removed"
	}
	return "updated"
}
