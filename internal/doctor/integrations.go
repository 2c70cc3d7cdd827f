package doctor

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/agentlock/agentlock/integrations"
	"github.com/agentlock/agentlock/integrations/all"
	"github.com/agentlock/agentlock/internal/setup"
)

// integrations checks every agent CLI connected to the project (one whose
// files hold agentlock's part): its files are what init writes now, its
// hooks gate the project's files, and what its harness requires for it to
// run them (a trust step, a setting) is there — the agent's own checks
// (integrations.Doctor), which the agent declares.
func (d *run) integrations() []Check {
	var checks []Check
	agents := d.opts.Agents
	if agents == nil {
		agents = all.Agents()
	}
	for _, a := range agents {
		// Global: doctor reads the user-level files too (Kimi Code's
		// hooks), to say when they are missing; it writes nothing.
		p, err := setup.Open(d.project.Root, setup.Options{Settings: d.opts.Settings, Agents: []integrations.Agent{a}, Bin: d.opts.Bin,
			Global: true, AgentDirs: d.opts.AgentDirs, WithoutStore: d.unusable != nil})
		if err != nil {
			checks = append(checks, Check{Name: "integration-" + a.Name(), Status: Problem,
				Detail: fmt.Sprintf("cannot read %s's set-up: %v", a.Title(), err), Fix: "agentlock init --agent " + a.Name()})
			continue
		}
		installed, legacy, err := d.connected(p)
		if err != nil {
			checks = append(checks, Check{Name: "integration-" + a.Name(), Status: Problem,
				Detail: fmt.Sprintf("cannot read %s's files: %v", a.Title(), err), Fix: "fix the file named, then agentlock init --agent " + a.Name()})
			continue
		}
		env := integrations.DoctorEnv{Root: p.Root, UserHome: d.opts.Settings.UserHome, SearchPath: d.opts.SearchPath,
			Environ: d.opts.Environ, Vars: d.opts.Vars, AgentDirs: d.opts.AgentDirs, Connected: installed, Legacy: legacy,
			Standard: func() []Check { return d.standard(p, a) },
			Gating:   func() Check { return d.gating(p, a) }}
		if doc, ok := a.(integrations.Doctor); ok {
			checks = append(checks, doc.Doctor(env)...)
		} else {
			checks = append(checks, integrations.StandardChecks(env)...)
		}
	}
	if len(checks) == 0 {
		checks = append(checks, Check{Name: "integrations", Status: OK,
			Detail: "no agent CLI is connected to this project (agents follow registry.md's protocol by hand)"})
	}
	return checks
}

// standard is the checks of every connected agent: its hooks gate the
// project's files, where they are a hook file doctor recognises, and its
// files are up to date.
func (d *run) standard(p *setup.Project, a integrations.Agent) []Check {
	var checks []Check
	if hooks, err := hooksInstalled(p); err == nil && hooks {
		checks = append(checks, d.gating(p, a))
	}
	return append(checks, drift(p, a, d.opts.Writer), subAgents(a))
}

// subAgents says how the agent's sub-agents lock (issue 35): sessions of
// their own, children of the session they work for, where its CLI tells
// them apart; else, as before, with their session's locks. Either way it
// is what the CLI allows, no problem to fix.
func subAgents(a integrations.Agent) Check {
	c := Check{Name: "subagents-" + a.Name(), Status: OK}
	if t, ok := a.(integrations.SubAgentTeller); ok && t.SubAgents() != "" {
		c.Detail = fmt.Sprintf("%s's sub-agents are sessions of their own, each a child of its session (<session>/<sub-agent id>), "+
			"told apart by %s: two sub-agents cannot both edit one file", a.Title(), t.SubAgents())
		return c
	}
	c.Detail = fmt.Sprintf("sub-agents of %s share their session's locks: its hooks do not say which sub-agent fires them, "+
		"so two of its sub-agents may edit one file at once (docs/integrations/README.md, Sub-agents)", a.Title())
	return c
}

// gating: the agent's hooks, installed in the project, gate its files. The
// pre-edit hook lets through every path that the workspace of its working
// folder does not coordinate (workspace.Workspace.Gates, the definition
// both use): hooks installed where that is every file protect nothing,
// whatever the instructions beside them say.
func (d *run) gating(p *setup.Project, a integrations.Agent) Check {
	c := Check{Name: "gating-" + a.Name(), Status: OK}
	probe := filepath.Join(p.Root, "agentlock-doctor-probe")
	if d.ws.Gates(probe) {
		c.Detail = fmt.Sprintf("%s's pre-edit hook gates the files of %s", a.Title(), p.Root)
		return c
	}
	c.Status = Problem
	c.Detail = fmt.Sprintf("%s's hooks are installed in %s, but its pre-edit hook would let every edit there through: "+
		"agentlock is not set up for that folder (its state is in %s, no %s folder marks it as a project)", a.Title(), p.Root, d.ws.Home, ".agent-registry")
	c.Fix = "agentlock init --agent " + a.Name() + " in " + p.Root + " (it makes the folder a project), or remove the hooks with agentlock uninit"
	return c
}

// hooksInstalled reports whether the project's files hold the agent's
// hooks (not only its instructions: Kimi's hooks are user-wide).
func hooksInstalled(p *setup.Project) (bool, error) {
	plan, err := p.PlanUninstall()
	if err != nil {
		return false, err
	}
	for _, c := range plan.Changes {
		if k := c.Artifact.Kind; c.Changed() && c.Artifact.Scope == integrations.Project && (k == integrations.JSONHooks || k == integrations.TOMLBlock) {
			return true, nil
		}
	}
	return false, nil
}

// connected reports whether any of the project's files holds the agent's
// part: uninstalling would change something (a user-level file that holds
// it, Kimi's hooks for every project, does not make this project
// connected). legacy names the files, project or user-level, that hold
// what an older agentlock wrote for an unsupported CLI (the legacy
// kimi-cli). It notes the folders of the agent's files, where the
// temporary-files check looks.
func (d *run) connected(p *setup.Project) (installed bool, legacy string, err error) {
	plan, err := p.PlanUninstall()
	if err != nil {
		return false, "", err
	}
	var old []string
	for _, c := range plan.Changes {
		d.dirs = append(d.dirs, filepath.Dir(c.Path))
		if !c.Changed() {
			continue
		}
		if c.Artifact.Unsupported {
			old = append(old, c.Artifact.Label())
		} else if c.Artifact.Scope == integrations.Project && !c.Artifact.MCPOnly {
			// An MCP file alone (.mcp.json, which Claude Code and
			// Copilot CLI share) connects no agent.
			installed = true
		}
	}
	return installed, strings.Join(old, ", "), nil
}

// drift compares the agent's files with what init writes now. A hook file
// out of date may gate edits wrongly or not at all: a problem; other files
// (instructions, skills, wrappers): a warning. Files another agentlock
// build wrote are said so, with whether that changes anything.
func drift(p *setup.Project, a integrations.Agent, current setup.Writer) Check {
	c := drifted(p, a)
	if others, err := p.OtherWriters(current); err != nil {
		c.Detail += "; " + err.Error()
	} else if len(others) == 1 {
		c.Detail += "; " + others[0].Note()
	}
	return c
}

func drifted(p *setup.Project, a integrations.Agent) Check {
	c := Check{Name: "integration-" + a.Name(), Fix: "agentlock init --agent " + a.Name()}
	plan, err := p.PlanInstall()
	if err != nil {
		c.Status, c.Detail = Problem, fmt.Sprintf("%s's files cannot be brought up to date: %v", a.Title(), err)
		return c
	}
	var stale []string
	hooks := false
	for _, ch := range plan.Changes {
		// An agent with user-level files (Kimi Code) is set up only with
		// the user's consent.
		if ch.Artifact.Scope == integrations.User && !strings.HasSuffix(c.Fix, " --global") {
			c.Fix += " --global"
		}
		if !ch.Changed() {
			continue
		}
		stale = append(stale, ch.Artifact.Label())
		if k := ch.Artifact.Kind; k == integrations.JSONHooks || k == integrations.TOMLBlock {
			hooks = true
		}
	}
	switch {
	case len(stale) == 0:
		c.Status, c.Detail, c.Fix = OK, fmt.Sprintf("%s is connected and its files are up to date", a.Title()), ""
	case hooks:
		c.Status, c.Detail = Problem, fmt.Sprintf("%s's hooks are missing or out of date (%s): edits may go unchecked", a.Title(), strings.Join(stale, ", "))
	default:
		c.Status, c.Detail = Warn, fmt.Sprintf("%s's files are out of date: %s", a.Title(), strings.Join(stale, ", "))
	}
	return c
}
