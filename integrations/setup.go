package integrations

import (
	"fmt"
	"path/filepath"
)

// HookFingerprint identifies agentlock's entries in a harness's JSON hook
// settings: every generated hook command runs "agentlock hook ...".
const HookFingerprint = "agentlock hook "

// Setup is what init and uninit work on: one project, the agents chosen,
// and the engine that writes their files.
type Setup struct {
	Engine Engine
	Env    Env
	Agents []Agent
	// Gitignore includes the .gitignore block that keeps the project's own
	// .agent-registry/ out of git.
	Gitignore bool
	// MCP registers agentlock mcp in each agent's project MCP file
	// (init without --no-mcp; always for uninit, which removes it).
	MCP bool
}

// Plan returns every artifact of the set-up — the .gitignore block first
// when asked, then each agent's — and the notes for the user, each
// prefixed with its agent's title.
func (s Setup) Plan() ([]Artifact, []string, error) {
	var arts []Artifact
	var notes []string
	planned := map[string]bool{} // agents with something to write
	if s.Gitignore {
		a, err := Gitignore(s.Env.Bin)
		if err != nil {
			return nil, nil, err
		}
		arts = append(arts, a)
	}
	for _, agent := range s.Agents {
		a, n, err := agent.Plan(s.Env)
		if err != nil {
			return nil, nil, fmt.Errorf("plan %s: %w", agent.Name(), err)
		}
		arts = append(arts, a...)
		planned[agent.Name()] = len(a) > 0
		for _, note := range n {
			notes = append(notes, agent.Title()+": "+note)
		}
	}
	if s.MCP || s.Env.Removing {
		var err error
		if arts, err = addMCP(arts, s.Agents, planned, s.Env); err != nil {
			return nil, nil, err
		}
	}
	return arts, notes, nil
}

// Changes computes the change of every artifact with compute (Engine.Install
// or Engine.Uninstall). It returns the changes, or every problem found: a
// set-up with any problem writes nothing.
func (s Setup) Changes(arts []Artifact, compute func(Artifact) (Change, error)) ([]Change, []error) {
	var out []Change
	var problems []error
	for _, a := range arts {
		c, err := compute(a)
		if err != nil {
			problems = append(problems, &ChangeError{Artifact: a, Err: err})
			continue
		}
		out = append(out, c)
	}
	if len(problems) > 0 {
		return nil, problems
	}
	return out, nil
}

// ChangeError is an artifact whose change cannot be computed (a file that
// agentlock does not own, a settings file it cannot parse, ...).
type ChangeError struct {
	Artifact Artifact
	Err      error
}

func (e *ChangeError) Error() string { return e.Err.Error() }
func (e *ChangeError) Unwrap() error { return e.Err }

// Label is how an artifact's file is shown to people: relative to the
// project, or under ~ for user files.
func (a Artifact) Label() string {
	if a.Scope == User && !filepath.IsAbs(a.Path) {
		return "~/" + a.Path
	}
	return a.Path
}

// LeftInUserFiles returns, for each chosen agent, the user-wide files that
// still hold agentlock's part although the set-up has no consent to touch
// them (Env.Global is false): uninit names them instead of editing them.
func (s Setup) LeftInUserFiles() []LeftFile {
	env := s.Env
	env.Global, env.Removing = true, true
	var out []LeftFile
	for _, agent := range s.Agents {
		arts, _, err := agent.Plan(env)
		if err != nil {
			continue
		}
		for _, a := range arts {
			if a.Scope != User {
				continue
			}
			if c, err := s.Engine.Uninstall(a); err == nil && c.Changed() {
				out = append(out, LeftFile{Agent: agent, Path: a.Label()})
			}
		}
	}
	return out
}

// LeftFile is a user-wide file that still holds an agent's part.
type LeftFile struct {
	Agent Agent
	Path  string // as the user knows it: "~/.kimi/config.toml", or absolute
}
