// Package doctor checks that agentlock can do its job on this machine, for
// one project: that its state is on a local file system, that the hooks
// and agents find the same agentlock, that each connected agent CLI has
// its files and, where the harness requires it, trusts them, that no
// agent-registry 0.2 home holds locks this project's agents do not see,
// and that the lock folder holds nothing corrupt, foreign or left over. It
// only reads: every check says what to do, and changes nothing.
package doctor

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/agentlock/agentlock/integrations"
	"github.com/agentlock/agentlock/internal/setup"
	"github.com/agentlock/agentlock/store"
	"github.com/agentlock/agentlock/workspace"
)

// Status is a check's verdict (the agents' checks and doctor's own share
// it: integrations.CheckStatus).
type Status = integrations.CheckStatus

// The verdicts, from best to worst. A problem makes agentlock unsafe or
// useless here (edits go unchecked, two owners are possible); a warning
// is worth a look.
const (
	OK      = integrations.CheckOK
	Warn    = integrations.CheckWarn
	Problem = integrations.CheckProblem
)

// Check is one line of the checklist; its JSON is doctor's --json record
// (integrations.Check, which the agents' own checks return).
type Check = integrations.Check

// Options are doctor's inputs, all explicit.
type Options struct {
	// Dir is the real path of the folder whose project is checked.
	Dir string
	// Settings locate the workspace (and name the user's home).
	Settings workspace.Settings
	// SearchPath is the PATH that hooks and agents search for Bin.
	SearchPath string
	// Self is the running program's file, compared with Bin on PATH.
	Self string
	// MCPServer is the program that agentlock mcp runs in its place
	// (workspace.MCPProgramFor, in this process); "" when there is none.
	MCPServer string
	// Bin is the command generated files run; empty means "agentlock".
	Bin string
	// Vars are the values of the variables the agents read for their
	// checks (integrations.Variables.EnvVars: CODEX_HOME, ...), by name.
	Vars map[string]string
	// Environ is the environment of the programs a check runs (codex
	// app-server).
	Environ []string
	// AgentDirs are agent CLIs' user folders moved by their variables
	// (KIMI_CODE_HOME, ...; integrations.Env.AgentDirs).
	AgentDirs map[string]string
	// Writer is the running build, compared with the one that wrote each
	// agent's files (setup.WrittenByFile).
	Writer setup.Writer
	// Skew is how far in the future a lock stamp may be before the clock
	// check reports it; zero means DefaultSkew.
	Skew time.Duration
	// Agents are the agents whose set-up is checked; nil means the
	// built-in ones (all.Agents), without those of agent manifests.
	Agents []integrations.Agent
	// Problems are the invalid settings of the configuration (each names
	// its variable and allowed range); the checks ran with the defaults.
	Problems []error
}

// DefaultSkew is the clock difference tolerated between the machines (or
// processes) that stamp locks: a stamp further in the future than this
// means a clock is wrong.
const DefaultSkew = 5 * time.Second

// Failed reports whether any check found a problem.
func Failed(checks []Check) bool {
	for _, c := range checks {
		if c.Status == Problem {
			return true
		}
	}
	return false
}

// Run runs every check for the project of opts.Dir, in a fixed order, and
// returns one Check per check (per connected agent for the integration
// checks). It fails only when the project cannot be opened at all.
func Run(ctx context.Context, opts Options) ([]Check, error) {
	if opts.Bin == "" {
		opts.Bin = "agentlock"
	}
	if opts.Skew == 0 {
		opts.Skew = DefaultSkew
	}
	if opts.Settings.Now == nil {
		opts.Settings.Now = time.Now
	}
	p, err := setup.Open(opts.Dir, setup.Options{Settings: opts.Settings, Bin: opts.Bin})
	var unusable *Check
	if errors.Is(err, workspace.ErrUnknownScheme) || errors.Is(err, workspace.ErrNoRemote) {
		// The store setting, or the build that serves it, is what is
		// wrong: a check, not a crash. Every check that does not need
		// the store still runs, on the project located without it.
		fix := "correct AGENTLOCK_STORE or .agent-registry/store (agentlock init --store etcd://host:2379/prefix, or --store files)"
		if errors.Is(err, workspace.ErrNoRemote) {
			fix = "install " + workspace.EtcdProgram + " beside agentlock or on PATH (go build -tags etcd -o " + workspace.EtcdProgram + " ./cmd/agentlock)"
		}
		unusable = &Check{Name: "store", Status: Problem, Detail: err.Error(), Fix: fix}
		p, err = setup.Open(opts.Dir, setup.Options{Settings: opts.Settings, Bin: opts.Bin, WithoutStore: true})
	}
	if err != nil {
		return nil, err
	}
	d := &run{opts: opts, project: p, ws: p.Workspace, unusable: unusable}
	checks := configChecks(opts.Problems, d.ws.Problems())
	// The store first: when it is down, what cannot be read is not damage.
	storeChecks := d.store(ctx)
	checks = append(checks, d.home(), d.registry(ctx))
	checks = append(checks, fileSystem("home-filesystem", "the home", d.ws.Home, opts.Settings.UserHome))
	if filepath.Clean(d.ws.LockDir) != filepath.Join(d.ws.Home, "locks") {
		checks = append(checks, fileSystem("lockdir-filesystem", "the lock folder", d.ws.LockDir, opts.Settings.UserHome))
	}
	checks = append(checks, d.writable()...)
	checks = append(checks, storeChecks...)
	checks = append(checks, d.binary())
	checks = append(checks, d.integrations()...)
	checks = append(checks, d.mcpServer(ctx))
	checks = append(checks, d.legacy(ctx))
	checks = append(checks, d.worktrees()...)
	lockChecks := d.lockFolder(ctx)
	checks = append(checks, lockChecks...)
	checks = append(checks, d.readVersions(ctx))
	checks = append(checks, d.tempFiles())
	return checks, nil
}

// run is one doctor run.
type run struct {
	opts    Options
	project *setup.Project
	ws      *workspace.Workspace
	// dirs are the folders agentlock writes files in, for the temporary
	// files check.
	dirs []string
	// storeDown is set when the distributed store does not answer: the
	// registry and lock checks then say so instead of blaming files.
	storeDown bool
	// unusable, when not nil, is the store check of a store this build
	// cannot open at all (an unknown scheme, no etcd build): the checks
	// that need the store say they did not run.
	unusable *Check
}

// notChecked is the check name of what needs the store, when it cannot
// be used (run.unusable).
func (d *run) notChecked(name, what string) Check {
	return Check{Name: name, Status: Warn,
		Detail: "not checked: " + what + " in " + d.ws.Store().URL + ", which this agentlock cannot use (see the store check)",
		Fix:    "fix the store first (the store check says how), then run agentlock doctor again"}
}

// home: the project has a home (registry and lock folder).
func (d *run) home() Check {
	c := Check{Name: "home"}
	if d.ws.Missing() {
		c.Status, c.Detail = Warn, "no registry or lock folder in "+d.ws.Home+" yet: agentlock is not set up here"
		c.Fix = "run agentlock init (with --agent NAME for each agent CLI you use)"
		return c
	}
	c.Status, c.Detail = OK, "registry "+d.ws.RegistryPath+", locks in "+d.ws.LockDir
	return c
}

// registry: registry.md reads and parses (a missing one is an empty
// registry). Registry commands refuse to write one that does not.
func (d *run) registry(ctx context.Context) Check {
	if d.unusable != nil {
		return d.notChecked("registry", "the registry is kept")
	}
	c := Check{Name: "registry"}
	doc, err := d.ws.Registry().Load(ctx)
	if err != nil && d.ws.Store().Set() {
		// The registry is a document in the store, not registry.md.
		c.Status, c.Detail = Problem, "the registry in "+d.ws.Store().URL+" cannot be read: "+err.Error()
		c.Fix = "see the store checks: start the store or fix its settings; no file here is damaged, so move nothing away"
		if !d.storeDown {
			c.Fix = "the store answers but its registry document does not read: agentlock show names the problem; repair the document in the store"
		}
		return c
	}
	if err != nil {
		c.Status, c.Detail = Problem, err.Error()
		c.Fix = "repair or move away " + d.ws.RegistryPath + " (agentlock never overwrites it): agentlock init creates an empty one"
		return c
	}
	c.Status, c.Detail = OK, fmt.Sprintf("%s reads, %d session(s)", d.ws.RegistryPath, len(doc.Agents))
	return c
}

// binary: the agentlock that hooks and agents run is this one.
func (d *run) binary() Check {
	b := setup.CheckBinary(d.opts.Bin, d.opts.SearchPath, d.opts.Self)
	c := Check{Name: "agentlock-on-path", Detail: b.Detail(), Fix: b.Fix()}
	switch b.State {
	case setup.BinaryMissing:
		c.Status = Problem
	case setup.BinaryOther, setup.BinaryTemporary:
		c.Status = Warn
	default:
		c.Status = OK
	}
	return c
}

// store: a distributed store (etcd) answers, and what it says about
// itself; nothing with the lock files.
func (d *run) store(ctx context.Context) []Check {
	if d.unusable != nil {
		d.storeDown = true
		return []Check{*d.unusable}
	}
	spec := d.ws.Store()
	if !spec.Set() {
		return nil
	}
	diag, ok := d.ws.LockStore().(store.Diagnoser)
	if !ok {
		return nil
	}
	var checks []Check
	for _, g := range diag.Diagnose(ctx) {
		c := Check{Name: g.Name, Status: OK, Detail: spec.URL + ": " + g.Detail, Fix: g.Fix}
		switch {
		case g.Problem:
			c.Status = Problem
			d.storeDown = d.storeDown || g.Name == "store-reachable"
		case g.Warn:
			c.Status = Warn
		default:
			c.Fix = ""
		}
		checks = append(checks, c)
	}
	return checks
}

// configChecks reports the configuration: every invalid setting is a
// problem (commands refuse to run with it, hooks deny edits), named with
// its allowed range; so is every setting of the project's own that cannot
// be used (project: a .agent-registry/timeout that is no timeout), which
// commands warn about while a safe value stands in. The checks after it
// ran with the defaults.
func configChecks(problems, project []error) []Check {
	if len(problems) == 0 && len(project) == 0 {
		return []Check{{Name: "configuration", Status: OK, Detail: "every AGENTLOCK_* setting is valid"}}
	}
	var checks []Check
	for _, p := range problems {
		checks = append(checks, Check{Name: "configuration", Status: Problem,
			Detail: p.Error() + "; commands refuse to run and the pre-edit hook denies every edit until it is fixed (the checks below use the default)",
			Fix:    "correct or unset the variable named"})
	}
	for _, p := range project {
		checks = append(checks, Check{Name: "configuration", Status: Problem,
			Detail: p.Error() + "; every command and hook warns until it is fixed",
			Fix:    "write seconds (300) or a duration (5m) in the file named, or remove it (agentlock init records the default again)"})
	}
	return checks
}
