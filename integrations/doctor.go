package integrations

import (
	"os"
	"path/filepath"
)

// CheckStatus is a doctor check's verdict.
type CheckStatus string

// The verdicts, from best to worst. A problem makes agentlock unsafe or
// useless here (edits go unchecked, two owners are possible); a warning
// is worth a look.
const (
	CheckOK      CheckStatus = "ok"
	CheckWarn    CheckStatus = "warn"
	CheckProblem CheckStatus = "problem"
)

// Check is one line of agentlock doctor's checklist; its JSON is doctor's
// --json record.
type Check struct {
	// Name identifies the check: "lockdir-filesystem", "codex-hook-trust".
	Name string `json:"name"`
	// Status is "ok", "warn" or "problem".
	Status CheckStatus `json:"status"`
	// Detail says what was found.
	Detail string `json:"detail"`
	// Fix says what to do; empty when Status is "ok".
	Fix string `json:"fix,omitempty"`
}

// Doctor is implemented by an Agent that knows what keeps its CLI from
// running agentlock's hooks (a trust step, a setting that turns hooks off):
// it writes its own section of agentlock doctor's checklist.
type Doctor interface {
	// Doctor returns the agent's checks for the project of env, in order.
	// It only reads, and runs no program longer than it needs.
	Doctor(env DoctorEnv) []Check
}

// DoctorEnv is what an agent's checks may know: doctor reads the
// environment and the project, and passes them here.
type DoctorEnv struct {
	// Root is the real path of the project's root.
	Root string
	// UserHome is the user's home folder.
	UserHome string
	// SearchPath is the PATH that hooks and agents search.
	SearchPath string
	// Environ is the environment of a program a check runs (codex
	// app-server, asked which hooks it trusts).
	Environ []string
	// Vars are the values of the variables the agent reads
	// (Variables.EnvVars), by name; unset ones are "".
	Vars map[string]string
	// AgentDirs are agent CLIs' user folders moved by their variables
	// (Env.AgentDirs).
	AgentDirs map[string]string
	// Connected says that the project's files hold the agent's part.
	Connected bool
	// Legacy names the files, project or user-level, that still hold what
	// an older agentlock wrote for a CLI it no longer supports
	// (Artifact.Unsupported); "" for none.
	Legacy string
	// Standard returns the checks of every connected agent: that its
	// hooks gate the project's files (where its hook file is merged JSON
	// or a TOML block), and that its files are what init writes now.
	Standard func() []Check
	// Gating returns the check that the agent's hooks, installed in the
	// project, gate its files: for an agent whose hooks are files of its
	// own, which Standard does not recognise as hooks.
	Gating func() Check
}

// StandardChecks is the section of an agent with no checks of its own:
// the standard checks when it is connected, nothing otherwise.
func StandardChecks(env DoctorEnv) []Check {
	if !env.Connected {
		return nil
	}
	return env.Standard()
}

// FindProgram returns the file that name runs as on searchPath (a PATH
// value), or "": the first regular, executable file of that name.
func FindProgram(name, searchPath string) string {
	for _, dir := range filepath.SplitList(searchPath) {
		if dir == "" {
			continue
		}
		p := filepath.Join(dir, name)
		if info, err := os.Stat(p); err == nil && info.Mode().IsRegular() && info.Mode()&0o111 != 0 {
			return p
		}
	}
	return ""
}

// Within reports whether path is dir or below it (both clean).
func Within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && filepath.IsLocal(rel)
}
