package opencode_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/integrations"
	"github.com/agentlock/agentlock/integrations/kilo"
	"github.com/agentlock/agentlock/integrations/manifest"
	"github.com/agentlock/agentlock/integrations/opencode"
	"github.com/agentlock/agentlock/internal/testkit/proctest"
)

func TestEditedPaths(t *testing.T) {
	a := opencode.Agent()
	in := func(tool string, args map[string]any) integrations.HookInput {
		data, err := json.Marshal(args)
		require.NoError(t, err)
		return integrations.HookInput{ToolName: tool, ToolInput: data}
	}
	paths, err := a.EditedPaths(in("edit", map[string]any{"filePath": "/p/a.go", "oldString": "x", "newString": "y"}))
	require.NoError(t, err)
	assert.Equal(t, []string{"/p/a.go"}, paths)
	paths, err = a.EditedPaths(in("write", map[string]any{"filePath": "b.go", "content": "x"}))
	require.NoError(t, err)
	assert.Equal(t, []string{"b.go"}, paths)
	patch := "*** Begin Patch\n*** Update File: free.txt\n@@\n-a\n+b\n*** Add File: new.txt\n+n\n*** Delete File: old.txt\n*** Update File: src/x.go\n*** Move to: src/y.go\n@@\n-a\n+b\n*** End Patch"
	paths, err = a.EditedPaths(in("apply_patch", map[string]any{"patchText": patch}))
	require.NoError(t, err)
	assert.Equal(t, []string{"free.txt", "new.txt", "old.txt", "src/x.go", "src/y.go"}, paths, "every path of the patch, all or nothing")
	_, err = a.EditedPaths(in("apply_patch", map[string]any{}))
	assert.ErrorIs(t, err, integrations.ErrUncheckable, "a patch without patchText cannot be checked")
	paths, err = a.EditedPaths(in("read", map[string]any{"filePath": "/p/a.go"}))
	require.NoError(t, err)
	assert.Empty(t, paths, "read edits nothing")
	paths, err = a.EditedPaths(in("bash", map[string]any{"command": "ls"}))
	require.NoError(t, err)
	assert.Empty(t, paths)
}

// fakeAgentlock is a stand-in for agentlock that records each call (its
// arguments and stdin) and answers as $FAKE_MODE says.
const fakeAgentlock = `#!/bin/sh
input=$(cat)
printf '%s %s\n' "$*" "$input" >> "$FAKE_LOG"
case "$FAKE_MODE:$3" in
deny:pre-edit) echo "agentlock: held.txt is locked by session other-1" >&2; exit 2 ;;
fail:pre-edit) echo "boom" >/dev/null; exit 1 ;;
*:session-start) echo "agentlock: you are session $2-x" ;;
esac
exit 0
`

// The generated plugin, run by node as OpenCode runs it: it hands edit
// tools (and only them) to agentlock hook, throws agentlock's reason when
// denied, fails closed when agentlock cannot be run or fails, injects the
// session variable into the shell, pushes the session-start text into the
// system prompt, and finishes every session it saw at exit.
func TestPluginContract(t *testing.T) {
	node := proctest.Need(t, "node", "the plugin is JavaScript, run as OpenCode runs it")
	for _, a := range []*manifest.Agent{opencode.Agent(), kilo.Agent()} {
		t.Run(a.Name(), func(t *testing.T) {
			dir := t.TempDir()
			fake := filepath.Join(dir, "agentlock")
			require.NoError(t, os.WriteFile(fake, []byte(fakeAgentlock), 0o755))
			plugin := func(bin string) string {
				arts, _, err := a.Plan(integrations.Env{Bin: bin})
				require.NoError(t, err)
				for _, art := range arts {
					if art.Path == pluginFile(a) {
						p := filepath.Join(dir, strings.ReplaceAll(bin, "/", "_")+".mjs")
						require.NoError(t, os.WriteFile(p, art.Content, 0o644))
						return p
					}
				}
				t.Fatalf("no %s in the plan", pluginFile(a))
				return ""
			}
			driver := `
const { AgentlockPlugin } = await import(process.argv[1]);
const h = await AgentlockPlugin({ directory: "/proj" });
const out = {};
const call = async (name, tool) => {
  try { await h["tool.execute.before"]({ tool, sessionID: "ses_1", callID: "c" }, { args: { filePath: "/proj/held.txt" } }); out[name] = "allowed"; }
  catch (e) { out[name] = "thrown: " + e.message; }
};
await call("read", "read");
await call("edit", "edit");
await h["tool.execute.after"]({ tool: "edit", sessionID: "ses_1", callID: "c" }, {});
await call("write", "write");
const env = { env: {} };
await h["shell.env"]({ cwd: "/proj", sessionID: "ses_1", callID: "c" }, env);
out.env = env.env;
const sys = { system: [] };
await h["experimental.chat.system.transform"]({ sessionID: "ses_1", model: {} }, sys);
out.system = sys.system;
console.log(JSON.stringify(out));
`
			run := func(bin, mode string) (map[string]any, string) {
				log := filepath.Join(dir, mode+".log")
				cmd := exec.Command(node, "--input-type=module", "-e", driver, plugin(bin))
				cmd.Env = []string{"PATH=/usr/bin:/bin", "FAKE_MODE=" + mode, "FAKE_LOG=" + log}
				stdout, err := cmd.Output()
				require.NoError(t, err, "node: %s", stdout)
				var out map[string]any
				require.NoError(t, json.Unmarshal(stdout, &out), "%s", stdout)
				calls, _ := os.ReadFile(log)
				return out, string(calls)
			}

			out, calls := run(fake, "allow")
			assert.Equal(t, "allowed", out["read"])
			assert.Equal(t, "allowed", out["edit"])
			assert.Equal(t, map[string]any{a.SessionEnvVar(): "ses_1"}, out["env"], "shell.env sets the session variable")
			assert.Equal(t, []any{"agentlock: you are session " + a.Name() + "-x"}, out["system"], "the session-start text is pushed into the system prompt")
			lines := strings.Split(strings.TrimSpace(calls), "\n")
			require.Len(t, lines, 5, "%s", calls)
			assert.True(t, strings.HasPrefix(lines[0], "hook "+a.Name()+" session-start "), "the session starts at its first edit: %s", lines[0])
			assert.Contains(t, lines[1], "hook "+a.Name()+" pre-edit ")
			assert.Contains(t, lines[1], `"session_id":"ses_1","cwd":"/proj","tool_name":"edit","tool_input":{"filePath":"/proj/held.txt"}`)
			assert.Contains(t, lines[2], "hook "+a.Name()+" renew")
			assert.Contains(t, lines[3], "hook "+a.Name()+" pre-edit ")
			assert.Contains(t, lines[4], "hook "+a.Name()+" session-end "+`{"session_id":"ses_1","cwd":"/proj"}`, "exit finishes the session")
			assert.NotContains(t, calls, `"tool_name":"read"`, "read is not handed to agentlock")

			// A sub-agent's child session: its payloads name the root
			// session it works for (asked of the client, up every parent)
			// and the sub-agent; its shell gets both.
			child := `
const { AgentlockPlugin } = await import(process.argv[1]);
const parents = { ses_sub2: "ses_sub1", ses_sub1: "ses_root" };
const client = { session: { get: async ({ path }) => ({ data: { id: path.id, parentID: parents[path.id] } }) } };
const h = await AgentlockPlugin({ directory: "/proj", client });
await h["tool.execute.before"]({ tool: "edit", sessionID: "ses_sub2", callID: "c" }, { args: { filePath: "/proj/a.txt" } });
const env = { env: {} };
await h["shell.env"]({ cwd: "/proj", sessionID: "ses_sub2", callID: "c" }, env);
console.log(JSON.stringify(env.env));
`
			log := filepath.Join(dir, "child.log")
			cmd := exec.Command(node, "--input-type=module", "-e", child, plugin(fake))
			cmd.Env = []string{"PATH=/usr/bin:/bin", "FAKE_MODE=allow", "FAKE_LOG=" + log}
			stdout, err := cmd.Output()
			require.NoError(t, err, "node: %s", stdout)
			var env map[string]any
			require.NoError(t, json.Unmarshal(stdout, &env), "%s", stdout)
			root := a.RootSessionEnvVar()
			assert.Equal(t, map[string]any{a.SessionEnvVar(): "ses_sub2", root: "ses_root"}, env)
			data, err := os.ReadFile(log)
			require.NoError(t, err)
			assert.Contains(t, string(data), `session-start {"session_id":"ses_root","sub_agent":"ses_sub2","cwd":"/proj"}`)
			assert.Contains(t, string(data), `pre-edit {"session_id":"ses_root","sub_agent":"ses_sub2","cwd":"/proj","tool_name":"edit"`)
			in, err := a.DecodePayload([]byte(`{"session_id":"ses_root","sub_agent":"ses_sub2","cwd":"/proj"}`))
			require.NoError(t, err)
			assert.Equal(t, "ses_sub2", in.SubAgent, "the manifest reads sub_agent")

			out, _ = run(fake, "deny")
			assert.Equal(t, "allowed", out["read"])
			assert.Equal(t, "thrown: agentlock: held.txt is locked by session other-1", out["edit"], "the model reads agentlock's reason")
			assert.Equal(t, "thrown: agentlock: held.txt is locked by session other-1", out["write"])

			out, _ = run(fake, "fail")
			assert.Contains(t, out["edit"], "thrown: agentlock: could not check this edit", "an agentlock failure fails closed")

			out, _ = run(filepath.Join(dir, "missing", "agentlock"), "allow")
			assert.Equal(t, "allowed", out["read"], "without agentlock, other tools run")
			assert.Contains(t, out["edit"], "thrown: agentlock: could not check this edit", "without agentlock, an edit fails closed")
			assert.Contains(t, out["edit"], "ENOENT")
		})
	}
}

// pluginFile is where a's plugin goes in the project: its config folder
// is named after it.
func pluginFile(a *manifest.Agent) string { return "." + a.Name() + "/plugins/agentlock.js" }
