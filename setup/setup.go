// Package setup sets a project up for agentlock and takes it apart again:
// it joins the project's home (registry and lock folder, package
// workspace) with the files that connect each agent CLI (package
// integrations). It decides what init and uninit change; front ends only
// show it.
package setup

import (
	"errors"
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
}

// Project is a project being set up or taken apart.
type Project struct {
	// Root is the project's real root: the project of the folder it was
	// opened from, or that folder itself when it is in none.
	Root      string
	Workspace *workspace.Workspace
	whole     bool
	set       integrations.Setup
}

// Open returns the project of the real folder dir.
func Open(dir string, opts Options) (*Project, error) {
	root := workspace.FindProject(dir)
	if root == "" {
		root = dir
	}
	ws, err := workspace.Open(root, opts.Settings)
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
	env := integrations.Env{Bin: bin, UserHome: userHome, Global: opts.Global, Exists: func(p string) bool {
		_, err := os.Stat(p)
		return err == nil
	}}
	engine := integrations.Engine{ProjectRoot: root, UserHome: userHome, Fingerprint: integrations.HookFingerprint}
	set := integrations.Setup{Engine: engine, Env: env, Agents: opts.Agents, Gitignore: opts.Whole && ws.OwnHome()}
	return &Project{Root: root, Workspace: ws, whole: opts.Whole, set: set}, nil
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

// PlanInstall computes what init changes.
func (p *Project) PlanInstall() (*Plan, error) { return p.plan(p.set.Engine.Install) }

// PlanUninstall computes what uninit changes.
func (p *Project) PlanUninstall() (*Plan, error) { return p.plan(p.set.Engine.Uninstall) }

func (p *Project) plan(compute func(integrations.Artifact) (integrations.Change, error)) (*Plan, error) {
	arts, notes, err := p.set.Plan()
	if err != nil {
		return nil, err
	}
	changes, problems := p.set.Changes(arts, compute)
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
	return &Plan{Changes: changes, Notes: notes, HomeMissing: p.Workspace.Missing()}, nil
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

// CreateHome creates the home (lock folder and registry) when missing.
func (p *Project) CreateHome() error { return p.Workspace.Setup() }

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
func (p *Project) RemoveHome(dryRun bool) (bool, error) {
	if !p.whole || !p.Workspace.OwnHome() || p.Workspace.Missing() {
		return false, nil
	}
	if err := p.Workspace.Teardown(dryRun); err != nil {
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
