package doctor

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
)

// kimiProgram checks the kimi that the project's agents run: the legacy
// Python kimi-cli (archived upstream) reads none of the hooks agentlock
// writes for Kimi Code CLI, so its edits go unchecked. A kimi that is not
// on PATH, or is Kimi Code, is fine.
func kimiProgram(searchPath string) (Check, bool) {
	prog := findOnPath("kimi", searchPath)
	if prog == "" {
		return Check{}, false
	}
	if real, err := filepath.EvalSymlinks(prog); err == nil {
		prog = real
	}
	f, err := os.Open(prog)
	if err != nil {
		return Check{}, false
	}
	defer f.Close()
	head := make([]byte, 4096)
	n, _ := io.ReadFull(f, head)
	head = head[:n]
	// kimi-cli's entry points (pip, pipx, uv) import kimi_cli; a
	// Python shebang without it is kimi-cli too.
	first, _, _ := bytes.Cut(head, []byte("\n"))
	if !bytes.Contains(head, []byte("kimi_cli")) && !(bytes.HasPrefix(first, []byte("#!")) && bytes.Contains(first, []byte("python"))) {
		return Check{}, false
	}
	return Check{Name: "kimi-legacy", Status: Warn,
		Detail: "the kimi on PATH (" + prog + ") is the legacy Python kimi-cli, which agentlock no longer supports: it reads none of agentlock's hooks, so its edits are not gated",
		Fix:    "install Kimi Code CLI (npm install -g @moonshot-ai/kimi-code), whose kimi reads the hooks in ~/.kimi-code/config.toml"}, true
}
