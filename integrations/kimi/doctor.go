package kimi

import (
	"bytes"
	"io"
	"os"
	"path/filepath"

	"github.com/agentlock/agentlock/integrations"
	"github.com/agentlock/agentlock/integrations/manifest"
)

// checks are Kimi Code's own checks: whether the kimi on PATH is the
// legacy kimi-cli, which reads none of agentlock's hooks.
func checks(_ *manifest.Agent, env integrations.DoctorEnv) []integrations.Check {
	if c, legacy := kimiProgram(env.SearchPath); legacy {
		return []integrations.Check{c}
	}
	return nil
}

// legacy is the check that agentlock's files for the legacy kimi-cli are
// still in files.
func legacy(files string) integrations.Check {
	return integrations.Check{Name: "kimi-legacy", Status: integrations.CheckWarn,
		Detail: "agentlock's files for the legacy kimi-cli are still in " + files + ": kimi-cli (archived upstream) is no longer supported, and nothing gates its edits",
		Fix:    "agentlock uninit --agent kimi --global, then agentlock init --agent kimi --global (for Kimi Code CLI)"}
}

// kimiProgram checks the kimi that the project's agents run: the legacy
// Python kimi-cli (archived upstream) reads none of the hooks agentlock
// writes for Kimi Code CLI, so its edits go unchecked. A kimi that is not
// on PATH, or is Kimi Code, is fine.
func kimiProgram(searchPath string) (integrations.Check, bool) {
	prog := integrations.FindProgram("kimi", searchPath)
	if prog == "" {
		return integrations.Check{}, false
	}
	if real, err := filepath.EvalSymlinks(prog); err == nil {
		prog = real
	}
	f, err := os.Open(prog)
	if err != nil {
		return integrations.Check{}, false
	}
	defer f.Close()
	head := make([]byte, 4096)
	n, _ := io.ReadFull(f, head)
	head = head[:n]
	// kimi-cli's entry points (pip, pipx, uv) import kimi_cli; a
	// Python shebang without it is kimi-cli too.
	first, _, _ := bytes.Cut(head, []byte("\n"))
	if !bytes.Contains(head, []byte("kimi_cli")) && !(bytes.HasPrefix(first, []byte("#!")) && bytes.Contains(first, []byte("python"))) {
		return integrations.Check{}, false
	}
	return integrations.Check{Name: "kimi-legacy", Status: integrations.CheckWarn,
		Detail: "the kimi on PATH (" + prog + ") is the legacy Python kimi-cli, which agentlock no longer supports: it reads none of agentlock's hooks, so its edits are not gated",
		Fix:    "install Kimi Code CLI (npm install -g @moonshot-ai/kimi-code), whose kimi reads the hooks in ~/.kimi-code/config.toml"}, true
}
