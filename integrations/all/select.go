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

// Builtin is the set of the agents agentlock ships.
func Builtin() Set { return Agents() }

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

// Select resolves agent names as the command line gives them: names, and
// "all" for every agent. Duplicates are dropped; an unknown name is an
// error that lists the known ones.
func Select(names []string) ([]integrations.Agent, error) { return Builtin().Select(names) }

// Select resolves agent names as the command line gives them, in s; see
// the function Select.
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

// HarnessSessions returns, per agent name, the session id that the agent's
// harness exported in its environment variable (Agent.SessionEnvVar), as
// getenv reads it; agents without one are left out.
func HarnessSessions(getenv func(name string) string) map[string]string {
	return Builtin().HarnessSessions(getenv)
}

// HarnessSessions is the function HarnessSessions for the agents of s.
func (s Set) HarnessSessions(getenv func(name string) string) map[string]string {
	ids := map[string]string{}
	for _, a := range s {
		if name := a.SessionEnvVar(); name != "" {
			if id := getenv(name); id != "" {
				ids[a.Name()] = id
			}
		}
	}
	return ids
}

// SessionFromHarness returns the agentlock session id ("<agent>-<id>") of
// the first agent, in the order of Agents, whose harness exported one in
// ids, and the variable it came from; "" when none did.
func SessionFromHarness(ids map[string]string) (id, source string) {
	return Builtin().SessionFromHarness(ids)
}

// SessionFromHarness is the function SessionFromHarness for the agents of s.
func (s Set) SessionFromHarness(ids map[string]string) (id, source string) {
	for _, a := range s {
		if raw := ids[a.Name()]; raw != "" {
			return integrations.SessionID(a, raw), a.SessionEnvVar()
		}
	}
	return "", ""
}
