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
