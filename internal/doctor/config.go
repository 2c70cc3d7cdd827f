package doctor

import (
	"fmt"
	"io"
	"strings"

	"github.com/agentlock/agentlock/report"
)

// pluginsOffVars are, by agent, the variables that stop that CLI from
// loading the project's plugins.
var pluginsOffVars = [][2]string{{"opencode", "OPENCODE_PURE"}, {"opencode", "OPENCODE_DISABLE_PROJECT_CONFIG"},
	{"kilo", "KILO_PURE"}, {"kilo", "KILO_DISABLE_PROJECT_CONFIG"}}

// PluginsOff returns Options.PluginsOff from the environment that getenv
// reads: by agent (opencode, kilo), the variables set that stop that CLI
// from loading the project's plugins, as NAME=value.
func PluginsOff(getenv func(string) string) map[string][]string {
	off := map[string][]string{}
	for _, b := range pluginsOffVars {
		// OpenCode reads a flag variable as on when it is "true" or "1".
		if val := getenv(b[1]); strings.ToLower(val) == "true" || val == "1" {
			off[b[0]] = append(off[b[0]], b[1]+"="+val)
		}
	}
	return off
}

// WriteCheck prints one check for people: its verdict and name, what was
// found (escaped), and on the next line what to do.
func WriteCheck(w io.Writer, ch Check) error {
	if _, err := fmt.Fprintf(w, "%-8s %s: %s\n", ch.Status, ch.Name, report.Escape(ch.Detail)); err != nil {
		return fmt.Errorf("write output: %w", err)
	}
	if ch.Fix != "" {
		if _, err := fmt.Fprintf(w, "%-8s fix: %s\n", "", report.Escape(ch.Fix)); err != nil {
			return fmt.Errorf("write output: %w", err)
		}
	}
	return nil
}
