package all

import (
	"fmt"
	"slices"
	"strings"

	"github.com/agentlock/agentlock/integrations"
)

// Select resolves agent names as the command line gives them: names, and
// "all" for every agent. Duplicates are dropped; an unknown name is an
// error that lists the known ones.
func Select(names []string) ([]integrations.Agent, error) {
	var out []integrations.Agent
	for _, name := range names {
		if name == "all" {
			return Agents(), nil
		}
		a, ok := Lookup(name)
		if !ok {
			return nil, fmt.Errorf("unknown agent %q (known: %s, all)", name, strings.Join(Names(), ", "))
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
	ids := map[string]string{}
	for _, a := range Agents() {
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
	for _, a := range Agents() {
		if raw := ids[a.Name()]; raw != "" {
			return integrations.SessionID(a, raw), a.SessionEnvVar()
		}
	}
	return "", ""
}
