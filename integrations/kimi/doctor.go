package kimi

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentlock/agentlock/integrations"
	"github.com/agentlock/agentlock/integrations/manifest"
)

// checks are Kimi Code's own checks: whether the kimi on PATH is the
// legacy kimi-cli, which reads none of agentlock's hooks, and whether Kimi
// Code trusts the project, without which it skips agentlock's MCP server.
func checks(_ *manifest.Agent, env integrations.DoctorEnv) []integrations.Check {
	var out []integrations.Check
	if c, legacy := kimiProgram(env.SearchPath); legacy {
		out = append(out, c)
	}
	home := env.AgentDirs[KimiCodeHomeVar]
	if home == "" {
		home = filepath.Join(env.UserHome, ".kimi-code")
	}
	if c, ok := mcpTrust(env.Root, home); ok {
		out = append(out, c)
	}
	return out
}

// MCPTrustMessage is what Kimi Code 2.1.0 prints (kimi -p, on stderr)
// when it skips the project's MCP servers of a folder it does not trust.
const MCPTrustMessage = "this folder is not trusted; skipped 1 project-level MCP server"

// mcpTrust checks, when the project's .kimi-code/mcp.json holds
// agentlock's server, that Kimi Code trusts the project's root: Kimi Code
// 2.1.0 loads a folder's project MCP servers (read from the folder it
// starts in) only once the user chose "Trust this folder" there, and kimi
// -p cannot ask. Its trust is a record in <Kimi home>/workspace-trust/
// named "wd_<slug of the folder's name>_<first 12 hex digits of the
// SHA-256 of its path>" (Kimi Code's encodeWorkDirKey, checked against
// 2.1.0). ok is false when there is nothing to check.
func mcpTrust(root, kimiHome string) (c integrations.Check, ok bool) {
	data, err := os.ReadFile(filepath.Join(root, ".kimi-code", "mcp.json"))
	var file struct {
		Servers map[string]json.RawMessage `json:"mcpServers"`
	}
	if err != nil || json.Unmarshal(data, &file) != nil || file.Servers[integrations.MCPServerName] == nil {
		return c, false
	}
	c = integrations.Check{Name: "kimi-mcp-trust"}
	record := filepath.Join(kimiHome, "workspace-trust", workDirKey(root))
	if _, err := os.Stat(record); err == nil {
		c.Status, c.Detail = integrations.CheckOK, fmt.Sprintf("Kimi Code trusts %s (%s): it loads agentlock's MCP server from .kimi-code/mcp.json", root, record)
		return c, true
	}
	c.Status = integrations.CheckWarn
	c.Detail = fmt.Sprintf("Kimi Code has not been told to trust %s (no %s): Kimi Code 2.1.0 skips the MCP servers of .kimi-code/mcp.json in a folder it does not trust "+
		"(kimi -p prints %q), so agentlock's MCP tools are missing there; its hooks still gate edits", root, record, MCPTrustMessage)
	c.Fix = "run kimi in " + root + " and choose \"Trust this folder\" (kimi -p cannot ask; Kimi trusts the folder it starts in)"
	return c, true
}

// workDirKey is Kimi Code's key of a working folder (encodeWorkDirKey):
// "wd_", the folder's name lower-cased with every run of characters other
// than a-z, 0-9, '.', '_' and '-' made one '-', trimmed of '-' and cut to
// 40 bytes ("workspace" when nothing, "." or ".." is left), "_", and the
// first 12 hex digits of the SHA-256 of the path without trailing slashes.
func workDirKey(dir string) string {
	path := strings.TrimRight(filepath.ToSlash(dir), "/")
	var b strings.Builder
	for _, r := range strings.ToLower(path[strings.LastIndex(path, "/")+1:]) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '.', r == '_', r == '-':
			b.WriteRune(r)
		case !strings.HasSuffix(b.String(), "\x00"):
			b.WriteString("\x00") // a run of others, made one '-' below
		}
	}
	slug := strings.Trim(strings.ReplaceAll(b.String(), "\x00", "-"), "-")
	if len(slug) > 40 {
		slug = strings.Trim(slug[:40], "-")
	}
	if slug == "" || slug == "." || slug == ".." {
		slug = "workspace"
	}
	sum := sha256.Sum256([]byte(path))
	return "wd_" + slug + "_" + hex.EncodeToString(sum[:])[:12]
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
