package all_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentlock/agentlock/internal/testkit/proctest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/integrations/all"
)

// fifthAgent is the testdata folder that holds the fake agent of
// TestAFifthAgentNeedsOnePackage, laid out as in the module: its folder
// integrations/fake/ and nothing else.
const fifthAgent = "fifth-agent"

// The claim of the integrations package — adding an agent means its folder
// integrations/<name>/ (manifest, templates, the Go that go generate writes
// from the manifest) and one line in all.Agents() — checked on a copy of
// the module: the fake agent's folder of testdata/fifth-agent is laid over
// it, go generate runs in it, one line (and its import) goes into all.go,
// and the copy builds, plans the fake agent's files, gates an edit through
// its hook, lists it in the help, and fails the golden test until -update
// writes its golden files.
func TestAFifthAgentNeedsOnePackage(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and tests a copy of the module (several seconds): skipped with -short")
	}
	goBin := proctest.Need(t, "go", "the fifth-agent build did not run")
	work := t.TempDir()
	mod := filepath.Join(work, "module")
	root, err := filepath.Abs(filepath.Join("..", ".."))
	require.NoError(t, err)
	copyTree(t, root, mod)
	copyTree(t, filepath.Join("testdata", fifthAgent), mod)
	addToAll(t, filepath.Join(mod, "integrations", "all", "all.go"), "fake")

	r := newRunner(t, goBin, work)
	r.mustRun(t, filepath.Join(mod, "integrations", "fake"), nil, 3*time.Minute, goBin, "generate", ".")
	require.FileExists(t, filepath.Join(mod, "integrations", "fake", "manifest_gen.go"), "go generate turns fake.toml into Go")
	bin := filepath.Join(work, "bin")
	r.mustRun(t, mod, nil, 3*time.Minute, goBin, "build", "-o", bin+string(filepath.Separator), "./...")
	agentlock := filepath.Join(bin, "agentlock")

	// A .git folder is what makes a folder a project for agentlock.
	project := filepath.Join(work, "project")
	require.NoError(t, os.MkdirAll(filepath.Join(project, ".git"), 0o755))
	help := r.mustRun(t, project, nil, time.Minute, agentlock, "init", "--help")
	names := all.Names() // addToAll puts the fake agent after kimi
	names = slices.Insert(names, slices.Index(names, "kimi")+1, "fake")
	assert.Contains(t, help, strings.Join(names, ", "), "the help lists derive from all.Agents()")

	plan := r.mustRun(t, project, nil, time.Minute, agentlock, "init", "--agent", "fake", "--dry-run")
	for _, file := range []string{".fake/rules/agentlock.md", ".fake/settings.json", "scripts/agentlock-fake"} {
		assert.Contains(t, plan, "+++ b/"+file+"\n", "init --dry-run plans the fake agent's %s", file)
	}
	assert.Contains(t, plan, `"command": "sh -c 'command -v agentlock`, "its hooks come from its template folder")
	entries, err := os.ReadDir(project)
	require.NoError(t, err)
	assert.Len(t, entries, 1, "--dry-run writes nothing")

	r.mustRun(t, project, nil, time.Minute, agentlock, "init", "--agent", "fake")
	assert.FileExists(t, filepath.Join(project, ".fake", "settings.json"))
	edit := func(session string) []byte {
		payload, err := json.Marshal(map[string]any{"cwd": project, "session_id": session, "hook_event_name": "PreEdit",
			"tool_name": "edit", "tool_input": map[string]string{"path": "src/a.go"}})
		require.NoError(t, err)
		return payload
	}
	r.mustRun(t, project, edit("one"), time.Minute, agentlock, "hook", "fake", "pre-edit")
	res := r.run(t, project, edit("two"), time.Minute, agentlock, "hook", "fake", "pre-edit")
	assert.Equal(t, 2, res.code, "a second session's edit of the same file is denied: %s", res.stderr)
	assert.Contains(t, res.stderr, "fake-one", "the holder is named by the fake agent's session id")

	// The copy's golden test knows the fake agent from all.Agents() and
	// fails for want of its golden files, saying how to write them.
	tests := `^(TestPlansMatchGoldenFiles|TestEveryAgentFolderIsRegistered|TestBuiltinManifestsAreGenerated)$`
	res = r.run(t, filepath.Join(mod, "integrations", "all"), nil, 3*time.Minute, goBin, "test", "-count=1", "-json", "-run", tests, ".")
	require.NotEqual(t, 0, res.code, "the golden test fails without the fake agent's golden files:\n%s", res.stdout)
	results, output := testEvents(t, res.stdout)
	assert.Equal(t, "fail", results["TestPlansMatchGoldenFiles/fake"], output["TestPlansMatchGoldenFiles/fake"])
	assert.Contains(t, output["TestPlansMatchGoldenFiles/fake"], `agent "fake" has no golden files`)
	assert.Contains(t, output["TestPlansMatchGoldenFiles/fake"], "go test ./integrations/all -update")
	for _, other := range []string{"claude", "codex", "gemini", "kimi"} {
		assert.Equal(t, "pass", results["TestPlansMatchGoldenFiles/"+other], "the other agents' golden files still match")
	}
	assert.Equal(t, "pass", results["TestEveryAgentFolderIsRegistered"], "integrations/fake is the fake agent's folder")
	assert.Equal(t, "pass", results["TestBuiltinManifestsAreGenerated/fake"], "manifest_gen.go is fake.toml")

	// -update writes them, and then the golden test passes: nothing else
	// was needed.
	r.mustRun(t, filepath.Join(mod, "integrations", "all"), nil, 3*time.Minute, goBin, "test", "-count=1", "-run", tests, ".", "-update")
	r.mustRun(t, filepath.Join(mod, "integrations", "all"), nil, 3*time.Minute, goBin, "test", "-count=1", "-run", tests, ".")
	assert.FileExists(t, filepath.Join(mod, "integrations", "fake", "testdata", "golden", "PLAN"))
}

// copyTree copies the regular files and folders below src into dst,
// leaving out version control and agentlock's local state.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		if d.Name() == ".git" || d.Name() == ".agent-registry" {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil // a worktree's .git is a file
		}
		target := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(target, 0o755)
		case d.Type().IsRegular():
			info, err := d.Info()
			if err != nil {
				return err
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			return os.WriteFile(target, data, info.Mode().Perm())
		}
		return nil // links and the like: the module has none it needs
	})
	require.NoError(t, err)
}

// addToAll adds agent's entry to the list in all.go, and its import.
func addToAll(t *testing.T, path, agent string) {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	src := string(data)
	for _, edit := range []struct{ after, line string }{
		{"\t\"github.com/agentlock/agentlock/integrations/kimi\"\n", "\t\"github.com/agentlock/agentlock/integrations/" + agent + "\"\n"},
		{"\t\tkimi.Agent(),\n", "\t\t" + agent + ".Agent(),\n"},
	} {
		require.Contains(t, src, edit.after, "all.go has changed shape: update addToAll")
		src = strings.Replace(src, edit.after, edit.after+edit.line, 1)
	}
	require.NoError(t, os.WriteFile(path, []byte(src), 0o644))
}

// runner runs child processes in a constructed environment: the go
// command's caches of the developer (so that nothing is downloaded and
// little is compiled) and nothing else of the developer's go settings
// (proctest.GoEnv), offline, a home of their own, and a PATH of the go
// command and the system's programs only.
type runner struct {
	env []string
}

func newRunner(t *testing.T, goBin, work string) runner {
	t.Helper()
	home := filepath.Join(work, "home")
	require.NoError(t, os.Mkdir(home, 0o755))
	goEnv, err := proctest.GoEnv(t.Context(), goBin)
	require.NoError(t, err)
	env := append([]string{"PATH=" + filepath.Dir(goBin) + string(os.PathListSeparator) + proctest.SystemPath, "HOME=" + home}, goEnv...)
	return runner{env: append(env,
		"GOFLAGS=-mod=mod -buildvcs=false",
		"GOPROXY=off", // every module is in the cache: a download is a bug
	)}
}

type result struct {
	code           int
	stdout, stderr string
}

// run runs name with args in dir, with stdin, and a deadline: a child that
// hangs fails the test naming the command.
func (r runner) run(t *testing.T, dir string, stdin []byte, timeout time.Duration, name string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir, cmd.Env, cmd.WaitDelay = dir, r.env, 5*time.Second
	cmd.Stdin = bytes.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	command := filepath.Base(name) + " " + strings.Join(args, " ")
	if ctx.Err() != nil {
		t.Fatalf("%s: no answer within %v (stderr: %s)", command, timeout, stderr.String())
	}
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("%s: %v", command, err)
	}
	return result{code: cmd.ProcessState.ExitCode(), stdout: stdout.String(), stderr: stderr.String()}
}

// mustRun is run for a command that must succeed; it returns its stdout.
func (r runner) mustRun(t *testing.T, dir string, stdin []byte, timeout time.Duration, name string, args ...string) string {
	t.Helper()
	res := r.run(t, dir, stdin, timeout, name, args...)
	require.Equal(t, 0, res.code, "%s %s failed:\n%s%s", filepath.Base(name), strings.Join(args, " "), res.stdout, res.stderr)
	return res.stdout
}

// testEvents reads go test -json output: each test's result ("pass",
// "fail", "skip") and output.
func testEvents(t *testing.T, stream string) (results, output map[string]string) {
	t.Helper()
	results, output = map[string]string{}, map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(stream))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var ev struct{ Action, Test, Output string }
		if json.Unmarshal(sc.Bytes(), &ev) != nil || ev.Test == "" {
			continue
		}
		switch ev.Action {
		case "output":
			output[ev.Test] += ev.Output
		case "pass", "fail", "skip":
			results[ev.Test] = ev.Action
		}
	}
	require.NoError(t, sc.Err())
	return results, output
}
