package doctor

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/agentlock/agentlock/report"
	"github.com/agentlock/agentlock/workspace"
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

// ConfigChecks reports the configuration: every invalid setting (each
// problem names the variable and its allowed range) is a problem, since
// commands refuse to run with it and hooks deny edits; the other checks
// ran with the defaults.
func ConfigChecks(problems []error) []Check {
	if len(problems) == 0 {
		return []Check{{Name: "configuration", Status: OK, Detail: "every AGENTLOCK_* setting is valid"}}
	}
	var checks []Check
	for _, p := range problems {
		checks = append(checks, Check{Name: "configuration", Status: Problem,
			Detail: p.Error() + "; commands refuse to run and the pre-edit hook denies every edit until it is fixed (the checks below use the default)",
			Fix:    "correct or unset the variable named"})
	}
	return checks
}

// StoreCheck turns an error of Run that the store setting causes (an
// unknown scheme, or no build that serves it) into the check that says
// so; ok is false for every other error.
func StoreCheck(err error) (check Check, ok bool) {
	if !errors.Is(err, workspace.ErrUnknownScheme) && !errors.Is(err, workspace.ErrNoRemote) {
		return Check{}, false
	}
	fix := "correct AGENTLOCK_STORE or .agent-registry/store (agentlock init --store etcd://host:2379/prefix, or --store files)"
	if errors.Is(err, workspace.ErrNoRemote) {
		fix = "install agentlock-etcd beside agentlock or on PATH (go build -tags etcd -o agentlock-etcd ./cmd/agentlock)"
	}
	return Check{Name: "store", Status: Problem, Detail: err.Error(), Fix: fix}, true
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
