package main

import (
	"context"
	"fmt"
	"image/png"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/internal/testkit/proctest"
)

// staleReadCheckLanded says whether issue 34 is on main: every write
// checked against the version of the file its agent last read, so that a
// write from a stale read is refused ("read it again") and redone.
//
// It landed (docs/read-versions.md): TestLosslessModes holds the
// agentlock mode to 0 lost updates, and to every edit finished, in every
// CLI's payload shapes and in a mixed fleet. (Before, the agentlock mode
// lost updates after stale reads, and the test checked that it still did,
// so that it failed, naming this constant, on the day issue 34 landed.)
const staleReadCheckLanded = true

// subagentSessionsLanded says whether issue 35 is on main: sub-agents
// sessions of their own, so that two sub-agents of one session cannot both
// pass the gate. It landed, with issue 34: each sub-agent's versions are its
// own, so that a sub-agent refused while its sibling held the file, and then
// writing from its stale read, is refused again ("read it again").
// TestLosslessModes holds the sub-agents case to 0 lost updates now. (Before,
// sub-agents shared their parent's session and overwrote each other, and the
// test checked that they still did until both constants were true.)
const subagentSessionsLanded = true

// agentlockBin is the agentlock built from the tree for these tests.
var agentlockBin string

func TestMain(m *testing.M) {
	// The simulator re-executes its binary as each agent: here, the test
	// binary.
	if spec := os.Getenv(agentSpecEnv); spec != "" {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
		err := agentMain(ctx, spec)
		stop()
		if err != nil {
			fmt.Fprintln(os.Stderr, "fleet agent:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(testMain(m))
}

func testMain(m *testing.M) int {
	dir, err := os.MkdirTemp("", "agentlock-fleet-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	if agentlockBin, err = buildAgentlock(dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return m.Run()
}

// buildAgentlock builds agentlock from the tree as it is installed
// (static), the same on every machine (proctest.GoBuild), with the test
// binary's -race so that a race-detector run watches the hooks too: a
// build step, not a process under test.
func buildAgentlock(dir string) (string, error) {
	out := filepath.Join(dir, "agentlock")
	flags := []string{"-trimpath"}
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, s := range info.Settings {
			if s.Key == "-race" && s.Value == "true" {
				flags = append(flags, "-race")
			}
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if err := proctest.GoBuild(ctx, out, "github.com/agentlock/agentlock/cmd/agentlock", flags...); err != nil {
		return "", fmt.Errorf("build agentlock: %w", err)
	}
	return out, nil
}

// testRunner runs fleets of the test binary's agents against the agentlock
// built from the tree.
func testRunner(t *testing.T) runner {
	t.Helper()
	proctest.Need(t, "git", "the fleet works in a git repository")
	proctest.Need(t, "bash", "Gemini CLI and Codex run their hooks with bash")
	self, err := os.Executable()
	require.NoError(t, err)
	env := []string{"GORACE=" + proctest.GORACE()}
	if dir := proctest.CoverDir(); dir != "" {
		env = append(env, "GOCOVERDIR="+dir)
	}
	return runner{agentlock: agentlockBin, self: self, env: env, progress: io.Discard}
}

// small is a fleet small enough for CI: no think time to speak of, one
// session, one turn; the tests change what they need.
func small() Knobs {
	k := Defaults()
	k.Agents, k.Files, k.Hot, k.Sessions, k.Turns, k.Edits = 3, 1, 0, 1, 1, 1
	k.Think, k.Step, k.Sample, k.MaxTries = 10*time.Millisecond, 5*time.Millisecond, 0, 0
	k.Deadline = 2 * time.Minute
	return k
}

// mode returns the mode named name.
func mode(t *testing.T, name string) Mode {
	t.Helper()
	ms, err := selectModes(name)
	require.NoError(t, err)
	return ms[0]
}

// One agent alone loses nothing; an overwrite injected before counting
// removes exactly the lines it removes, and they count as lost.
func TestCountsAnInjectedOverwrite(t *testing.T) {
	r := testRunner(t)
	k := small()
	k.Agents, k.Turns = 1, 3
	res, err := r.run(t.Context(), mode(t, "none"), k)
	require.NoError(t, err)
	assert.Equal(t, 3, res.Accepted)
	assert.Equal(t, 0, res.Lost, "one agent alone lost an update: the count is wrong")

	k.InjectOverwrite = 2
	res, err = r.run(t.Context(), mode(t, "none"), k)
	require.NoError(t, err)
	assert.Equal(t, 3, res.Accepted)
	assert.Equal(t, 2, res.Lost, "the injected overwrite removed 2 accepted lines")
	assert.Equal(t, 1, res.Surviving)
}

// Without coordination, agents that all read one file before any of them
// writes it lose every write but the last: the simulator must see it.
func TestUncoordinatedFleetLosesOnAHotFile(t *testing.T) {
	r := testRunner(t)
	k := small()
	k.Agents, k.Rendezvous = 4, true
	res, err := r.run(t.Context(), mode(t, "none"), k)
	require.NoError(t, err)
	assert.Equal(t, 4, res.Accepted)
	assert.Equal(t, 3, res.Lost, "4 whole-file writes from the same read: only the last survives")
	assert.Equal(t, 0, res.Refusals)
}

// Every mode that claims to lose nothing loses nothing: agents that all
// read one hot file before any writes it (stale reads made certain), in
// each CLI's payload shapes and in a mixed fleet; and a small fleet of the
// issue's kind. The agentlock mode is held to it once issue 34 lands
// (staleReadCheckLanded); until then it must still lose updates, so that
// this test says when to flip the constant.
func TestLosslessModes(t *testing.T) {
	r := testRunner(t)
	fleets := [][]string{{"claude"}, {"gemini"}, {"codex"}, {"claude", "gemini", "codex"}}
	for _, m := range Modes() {
		if !m.Lossless {
			continue
		}
		for _, fleet := range fleets {
			if !m.Hooks && len(fleet) > 1 {
				continue // without hooks the CLI plays no part
			}
			k := small()
			k.Rendezvous, k.CLIs = true, fleet
			t.Run(m.Name+"/stale-reads/"+k.Fleet(), func(t *testing.T) {
				res, err := r.run(t.Context(), m, k)
				require.NoError(t, err)
				checkLossless(t, m, k, res, staleReadCheckLanded)
			})
			if !m.Hooks {
				break
			}
		}
		if m.Hooks {
			// Two sub-agents of one Claude Code session read the file,
			// then both write it.
			k := small()
			k.Agents, k.Subagents, k.Rendezvous = 1, 2, true
			t.Run(m.Name+"/subagents/"+k.Fleet(), func(t *testing.T) {
				res, err := r.run(t.Context(), m, k)
				require.NoError(t, err)
				checkLossless(t, m, k, res, staleReadCheckLanded && subagentSessionsLanded)
			})
		}
		// One edit a session: no session holds one file while it wants
		// another, so locks that last a session cannot deadlock it.
		k := small()
		k.Agents, k.Files, k.Hot, k.HotShare, k.Sessions = 4, 4, 1, 0.5, 3
		k.CLIs = []string{"claude", "gemini", "codex"}
		t.Run(m.Name+"/small-fleet", func(t *testing.T) {
			if m.Hooks && !staleReadCheckLanded {
				t.Log("issue 34 not landed: a small fleet's losses after stale reads depend on timing, nothing to assert")
				return
			}
			res, err := r.run(t.Context(), m, k)
			require.NoError(t, err)
			checkLossless(t, m, k, res, staleReadCheckLanded)
		})
	}
}

// checkLossless holds a run of a lossless mode to its claim; for a mode
// with hooks, once landed says that agentlock should keep it.
func checkLossless(t *testing.T, m Mode, k Knobs, res Result, landed bool) {
	t.Helper()
	if m.Hooks && !landed {
		assert.Positive(t, res.Lost, "the agentlock mode lost no update here: the issue this case waits for seems to have landed; "+
			"set staleReadCheckLanded (issue 34) or subagentSessionsLanded (issue 35) to true in bench/fleet/fleet_test.go, and update docs/fleet.md")
		return
	}
	assert.Equal(t, 0, res.Lost, "mode %s lost updates: %+v", m.Name, res)
	assert.Equal(t, 0, res.Abandoned, "mode %s gave up edits: %+v", m.Name, res)
	assert.Equal(t, k.Agents*k.Sessions*k.Turns*k.Edits*max(1, k.Subagents), res.Accepted, "every edit is made")
	if m.Worktrees && k.Rendezvous {
		// Every branch changed the one file at its end: each merge after
		// the first conflicts, and the forecast named the file.
		assert.Equal(t, k.Agents-1, res.Conflicts)
		assert.Equal(t, 1, res.PredictedFiles)
	}
}

// The chart and the docs come from the results: a PNG of the right size,
// and the generated part of the Markdown replaced between its markers,
// the rest kept.
func TestChartAndDocs(t *testing.T) {
	dir := t.TempDir()
	var results []Result
	for i, n := range []int{2, 4, 8} {
		w := fmt.Sprint(n, " agents")
		results = append(results,
			Result{Mode: "none", Fleet: "claude", Agents: n, Work: w, Accepted: 10 * n, Lost: i * n, LostShare: float64(i) / 10, Throughput: float64(n)},
			Result{Mode: "agentlock", Fleet: "claude", Agents: n, Work: w, Accepted: 10 * n, Throughput: float64(n) / 2, Refusal: "agentlock: held " + dir},
			Result{Mode: "agentlock", Fleet: "codex", Agents: n, Work: w, Accepted: 10 * n, Throughput: float64(n) / 3})
	}
	relate(results)
	assert.Equal(t, 0.5, results[1].Relative)
	assert.InDelta(t, 1.0/3, results[8].Relative, 1e-9, "compared with the uncoordinated run of the same work")
	chart := filepath.Join(dir, "fleet.png")
	require.NoError(t, writeChart(chart, results, "claude"))
	f, err := os.Open(chart)
	require.NoError(t, err)
	defer f.Close()
	cfg, err := png.DecodeConfig(f)
	require.NoError(t, err)
	assert.Equal(t, [2]int{chartW, chartH}, [2]int{cfg.Width, cfg.Height})

	md := filepath.Join(dir, "fleet.md")
	require.NoError(t, os.WriteFile(md, []byte("# Fleet\n\nby hand\n\n"+docsBegin+"\nold\n"+docsEnd+"\n\nafter\n"), 0o644))
	k := Defaults()
	require.NoError(t, updateDocs(md, Report{Machine: "m", Revision: "abc", Knobs: k, Also: []string{"-clis codex"}, Results: results}, chart))
	data, err := os.ReadFile(md)
	require.NoError(t, err)
	doc := string(data)
	assert.True(t, strings.HasPrefix(doc, "# Fleet\n\nby hand\n\n"+docsBegin))
	assert.True(t, strings.HasSuffix(doc, docsEnd+"\n\nafter\n"))
	assert.NotContains(t, doc, "\nold\n")
	assert.Contains(t, doc, "Measured on abc")
	assert.Contains(t, doc, "](fleet.png)")
	assert.Contains(t, doc, "| agentlock | codex | 8 |")
	assert.Contains(t, doc, "`-clis codex`")
	assert.Contains(t, doc, "### Every size (claude)")
	assert.Contains(t, doc, knobLine(k))
	require.Error(t, updateDocs(chart, Report{}, ""), "a file without the markers is refused")
}
