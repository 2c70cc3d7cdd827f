package codex

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/agentlock/agentlock/integrations"
	"github.com/agentlock/agentlock/integrations/manifest"
)

// checks are Codex's own checks: whether it trusts agentlock's hooks (it
// runs a project's hooks only once their definition is trusted).
func checks(_ *manifest.Agent, env integrations.DoctorEnv) []integrations.Check {
	codexHome := env.Vars[codexHomeVar]
	return []integrations.Check{codexTrustCheck(filepath.Join(env.Root, ".codex", "hooks.json"), codexConfig(codexHome, env.UserHome), codexHome, env.SearchPath, env.Root, env.Environ)}
}

// codexHomeVar moves Codex's user folder (default ~/.codex).
const codexHomeVar = "CODEX_HOME"

// codexConfig is Codex's user configuration file.
func codexConfig(codexHome, userHome string) string {
	if codexHome == "" {
		codexHome = filepath.Join(userHome, ".codex")
	}
	return filepath.Join(codexHome, "config.toml")
}

// CodexQueryTimeout bounds the whole codex app-server exchange.
const CodexQueryTimeout = 20 * time.Second

// codexHook is one hook as codex app-server's hooks/list reports it.
type codexHook struct {
	Key         string `json:"key"`
	EventName   string `json:"eventName"`
	Command     string `json:"command"`
	SourcePath  string `json:"sourcePath"`
	TrustStatus string `json:"trustStatus"` // "trusted", "untrusted", "modified"
}

// codexHooksList asks Codex itself which hooks it would run for the
// project at root and whether each is trusted: codex app-server speaks
// JSON-RPC on stdio; after initialize, hooks/list with {"cwds": [root]}
// lists each hook with its trust status, the hash being Codex's own. The
// child runs with a deadline and is killed past it.
func codexHooksList(codex, codexHome, root string, environ []string) ([]codexHook, error) {
	ctx, cancel := context.WithTimeout(context.Background(), CodexQueryTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, codex, "app-server")
	cmd.Dir = root
	cmd.Env = environ
	if codexHome != "" {
		cmd.Env = append(slices.Clip(environ), codexHomeVar+"="+codexHome)
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("codex app-server: %w", err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("codex app-server: %w", err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start codex app-server: %w", err)
	}
	defer func() {
		_ = stdin.Close()
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}()
	params, err := json.Marshal(map[string]any{"cwds": []string{root}})
	if err != nil {
		return nil, err
	}
	requests := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"clientInfo":{"name":"agentlock-doctor","version":"1"}}}` + "\n" +
		`{"jsonrpc":"2.0","method":"initialized"}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"hooks/list","params":` + string(params) + "}\n"
	if _, err := stdin.Write([]byte(requests)); err != nil {
		return nil, fmt.Errorf("codex app-server: %w", err)
	}
	return readHooksList(stdout, root)
}

// readHooksList reads JSON-RPC messages until the answer to request 2.
func readHooksList(r interface{ Read([]byte) (int, error) }, root string) ([]codexHook, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for sc.Scan() {
		var msg struct {
			ID     *int            `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  *struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		if json.Unmarshal(sc.Bytes(), &msg) != nil || msg.ID == nil || *msg.ID != 2 {
			continue // notifications, the initialize answer
		}
		if msg.Error != nil {
			return nil, fmt.Errorf("codex app-server hooks/list: %s", msg.Error.Message)
		}
		var res struct {
			Data []struct {
				Cwd   string      `json:"cwd"`
				Hooks []codexHook `json:"hooks"`
			} `json:"data"`
		}
		if err := json.Unmarshal(msg.Result, &res); err != nil {
			return nil, fmt.Errorf("codex app-server hooks/list: %w", err)
		}
		var hooks []codexHook
		for _, d := range res.Data {
			hooks = append(hooks, d.Hooks...)
		}
		return hooks, nil
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("codex app-server: %w", err)
	}
	return nil, errors.New("codex app-server ended without answering hooks/list")
}

// codexTrustReported judges agentlock's hooks among those Codex listed:
// the ones of hooksFile whose command runs "agentlock hook codex".
func codexTrustReported(hooks []codexHook, hooksFile string) integrations.Check {
	c := integrations.Check{Name: "codex-hook-trust"}
	var ours, bad []string
	for _, h := range hooks {
		if filepath.Clean(h.SourcePath) != filepath.Clean(hooksFile) || !strings.Contains(h.Command, "agentlock hook codex") {
			continue
		}
		ours = append(ours, h.EventName)
		if h.TrustStatus != "trusted" {
			bad = append(bad, h.EventName+" "+h.TrustStatus)
		}
	}
	sort.Strings(bad)
	switch {
	case len(ours) == 0:
		c.Status = integrations.CheckProblem
		c.Detail = fmt.Sprintf("Codex lists none of agentlock's hooks for this project (%s): it does not load them (an untrusted project?), so edits go unchecked", hooksFile)
		c.Fix = "trust the project in codex ([projects.\"<path>\"] trust_level = \"trusted\"), then agentlock init --agent codex"
	case len(bad) > 0:
		c.Status = integrations.CheckProblem
		c.Detail = fmt.Sprintf("Codex reports agentlock's hooks not trusted (%s): it skips them (codex exec silently), so edits go unchecked", strings.Join(bad, ", "))
		c.Fix = "run codex in this project, open /hooks and trust agentlock's hooks; for automation, codex exec --dangerously-bypass-hook-trust"
	default:
		c.Status = integrations.CheckOK
		c.Detail = fmt.Sprintf("Codex reports agentlock's %d hooks trusted (codex app-server hooks/list)", len(ours))
	}
	return c
}

// codexTrustCheck asks the installed codex (on searchPath) for the trust of
// agentlock's hooks; without codex, or when it cannot answer, it falls back
// to the trust recorded in Codex's config.toml (codexTrust).
func codexTrustCheck(hooksFile, config, codexHome, searchPath, root string, environ []string) integrations.Check {
	codex := integrations.FindProgram("codex", searchPath)
	if codex == "" {
		return codexTrust(hooksFile, config)
	}
	hooks, err := codexHooksList(codex, codexHome, root, environ)
	if err != nil {
		c := codexTrust(hooksFile, config)
		c.Detail += fmt.Sprintf(" (asking codex failed: %v)", err)
		return c
	}
	return codexTrustReported(hooks, hooksFile)
}

// codexStateHeader matches a Codex hook-trust table header:
// [hooks.state."<key>"], the key naming the hooks.json file and the hook's
// place in it.
var codexStateHeader = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\s*\[\s*hooks\.state\.("(?:[^"\\]|\\.)*"|'[^']*')\s*\]\s*(#.*)?$`)
})

// codexTrust looks in Codex's config.toml for trust recorded for the hooks
// of hooksFile. Codex runs a project's hooks only when their hash is
// trusted (codex exec skips the others silently); the hash is Codex's own
// over the command, matcher, timeout and status message, which agentlock
// does not compute: it can tell that trust was never given, not that the
// trust given still matches.
func codexTrust(hooksFile, config string) integrations.Check {
	c := integrations.Check{Name: "codex-hook-trust"}
	data, err := os.ReadFile(config)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		c.Status, c.Detail, c.Fix = integrations.CheckWarn, fmt.Sprintf("cannot read %s: %v", config, err), "make it readable, or check in codex /hooks that agentlock's hooks are trusted"
		return c
	}
	trusted := 0
	inEntry := false
	for _, line := range strings.Split(string(data), "\n") {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "[") {
			m := codexStateHeader().FindStringSubmatch(trimmed)
			inEntry = m != nil && strings.Contains(unquoteKey(m[1]), hooksFile)
			continue
		}
		if inEntry && strings.HasPrefix(trimmed, "trusted_hash") {
			trusted++
			inEntry = false
		}
	}
	if trusted == 0 {
		c.Status = integrations.CheckProblem
		c.Detail = fmt.Sprintf("Codex has no trust recorded for the hooks in %s (looked in %s): it does not run untrusted hooks, so edits go unchecked", hooksFile, config)
		c.Fix = "run codex in this project and trust agentlock's hooks in /hooks"
		return c
	}
	c.Status = integrations.CheckWarn
	c.Detail = fmt.Sprintf("Codex has trust recorded for %d hook(s) of %s; whether it matches the hooks as they are now cannot be verified here (the hash is Codex's)", trusted, hooksFile)
	c.Fix = "after init changed the hooks, run codex /hooks and trust them again"
	return c
}

// unquoteKey returns a TOML quoted key's text.
func unquoteKey(q string) string {
	if strings.HasPrefix(q, "'") {
		return strings.Trim(q, "'")
	}
	var s string
	if err := json.Unmarshal([]byte(q), &s); err == nil {
		return s
	}
	return strings.Trim(q, `"`)
}
