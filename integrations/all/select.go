package all

import (
	"fmt"
	"slices"
	"strings"

	"github.com/agentlock/agentlock/integrations"
)

// Set is a list of agents, in the order of the session-id resolution: the
// built-in ones, then those added by manifests (Load).
type Set []integrations.Agent

// Lookup returns the agent called name.
func (s Set) Lookup(name string) (integrations.Agent, bool) {
	for _, a := range s {
		if a.Name() == name {
			return a, true
		}
	}
	return nil, false
}

// Names returns the agents' names.
func (s Set) Names() []string {
	var names []string
	for _, a := range s {
		names = append(names, a.Name())
	}
	return names
}

// Select resolves agent names as the command line gives them, in s:
// names, and "all" for every agent. Duplicates are dropped; an unknown
// name is an error that lists the known ones.
func (s Set) Select(names []string) ([]integrations.Agent, error) {
	var out []integrations.Agent
	for _, name := range names {
		if name == "all" {
			return s, nil
		}
		a, ok := s.Lookup(name)
		if !ok {
			return nil, fmt.Errorf("unknown agent %q (known: %s, all; or the path of an agent manifest, docs/integrations/plugins.md)", name, strings.Join(s.Names(), ", "))
		}
		if !slices.ContainsFunc(out, func(b integrations.Agent) bool { return b.Name() == name }) {
			out = append(out, a)
		}
	}
	return out, nil
}

// HarnessSessions returns, per agent name, the session id that the
// harness of an agent of s exported in its environment variable
// (Agent.SessionEnvVar), as getenv reads it; agents without one are left
// out.
func (s Set) HarnessSessions(getenv func(name string) string) map[string]string {
	ids := map[string]string{}
	for _, a := range s {
		if name := a.SessionEnvVar(); name != "" {
			if id := getenv(name); id != "" {
				ids[a.Name()] = id
				if root := rootSession(a, getenv); root != "" {
					ids[a.Name()] = root // a sub-agent's shell: the session is the root's
				}
			}
		}
	}
	return ids
}

// HarnessSubAgents returns, per agent name, the id of the sub-agent whose
// shell the harness runs this process in, where the agent's harness says
// it (integrations.RootSessionVar: its session variable then differs from
// its root's); agents without one are left out.
func (s Set) HarnessSubAgents(getenv func(name string) string) map[string]string {
	subs := map[string]string{}
	for _, a := range s {
		if root := rootSession(a, getenv); root != "" {
			subs[a.Name()] = getenv(a.SessionEnvVar())
		}
	}
	return subs
}

// rootSession is the id of the session that a's harness names in a
// sub-agent's shell: its root variable's, when set and not the session
// variable's; "" otherwise (a main thread, or no such variable).
func rootSession(a integrations.Agent, getenv func(name string) string) string {
	r, ok := a.(integrations.RootSessionVar)
	if !ok || r.RootSessionEnvVar() == "" || a.SessionEnvVar() == "" {
		return ""
	}
	root, own := getenv(r.RootSessionEnvVar()), getenv(a.SessionEnvVar())
	if root == "" || own == "" || root == own {
		return ""
	}
	return root
}

// SessionFromHarness returns the agentlock session id ("<agent>-<id>") of
// the first agent of s whose harness exported one in ids, and the variable
// it came from; "" when none did.
func (s Set) SessionFromHarness(ids map[string]string) (id, source string) {
	for _, a := range s {
		if raw := ids[a.Name()]; raw != "" {
			return integrations.SessionID(a, raw), a.SessionEnvVar()
		}
	}
	return "", ""
}

// SubAgentFromHarness returns the sub-agent of the agent SessionFromHarness
// chooses in ids, as subs (HarnessSubAgents) names it, the variable it
// came from, and the variable that then named the session (the root's);
// "" in a main thread.
func (s Set) SubAgentFromHarness(ids, subs map[string]string) (sub, source, rootSource string) {
	for _, a := range s {
		if ids[a.Name()] != "" {
			if subs[a.Name()] == "" {
				return "", "", ""
			}
			return subs[a.Name()], a.SessionEnvVar(), a.(integrations.RootSessionVar).RootSessionEnvVar()
		}
	}
	return "", "", ""
}

// Variables returns the environment variables that the agents of s read:
// their session variables, the variables that move their CLIs' folders
// and those their checks read (integrations.Variables), each once.
func (s Set) Variables() []string {
	var names []string
	for _, a := range s {
		if v := a.SessionEnvVar(); v != "" && !slices.Contains(names, v) {
			names = append(names, v)
		}
		if r, ok := a.(integrations.RootSessionVar); ok && r.RootSessionEnvVar() != "" && !slices.Contains(names, r.RootSessionEnvVar()) {
			names = append(names, r.RootSessionEnvVar())
		}
	}
	for _, v := range append(s.vars(integrations.Variables.DirVars), s.vars(integrations.Variables.EnvVars)...) {
		if !slices.Contains(names, v) {
			names = append(names, v)
		}
	}
	return names
}
