package setup_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/integrations/all"
	"github.com/agentlock/agentlock/internal/setup"
	"github.com/agentlock/agentlock/internal/testkit/gittest"
	"github.com/agentlock/agentlock/report"
	"github.com/agentlock/agentlock/workspace"
)

// step is one step a Reporter received.
type step struct{ action, path, detail, line string }

// steps records the steps of init and uninit.
type steps struct{ list []step }

func (s *steps) Change(action, path, detail, line string) {
	s.list = append(s.list, step{action, path, detail, line})
}

// actions returns the actions reported, in order.
func (s *steps) actions() []string {
	var out []string
	for _, st := range s.list {
		out = append(out, st.action)
	}
	return out
}

// fixture is a git repository to set up, with a user home of its own.
type fixture struct {
	root, home string
	settings   workspace.Settings
}

func newFixture(t *testing.T) fixture {
	t.Helper()
	gittest.Need(t)
	base, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	root, home := filepath.Join(base, "repo"), filepath.Join(base, "home")
	require.NoError(t, os.MkdirAll(root, 0o755))
	require.NoError(t, os.MkdirAll(home, 0o700))
	gittest.Run(t, nil, root, "init", "-q")
	return fixture{root: root, home: home, settings: workspace.Settings{UserHome: home}}
}

// open opens the fixture's project for the agents named.
func (f fixture) open(t *testing.T, names []string, whole, install bool) *setup.Project {
	t.Helper()
	agents, err := all.Agents().Select(names)
	require.NoError(t, err)
	p, err := setup.Open(f.root, setup.Options{Settings: f.settings, Agents: agents, Whole: whole, NewProject: install})
	require.NoError(t, err)
	return p
}

// init returns an Init of the fixture reporting to rec and errOut.
func (f fixture) init(rec *steps, errOut *bytes.Buffer) *setup.Init {
	return &setup.Init{Output: setup.Output{Report: rec, ErrOut: errOut}, Settings: f.settings, Dir: f.root,
		Writer: setup.Writer{Version: "v1.0.0"}, RecordWriter: true,
		Binary: func() (string, error) { return "", nil }, EtcdBuild: func() bool { return false }}
}

func TestInstallDryRunWritesNothingThenInstallThenCheck(t *testing.T) {
	f := newFixture(t)
	var errOut bytes.Buffer

	dry := &steps{}
	in := f.init(dry, &errOut)
	in.DryRun = true
	require.NoError(t, in.Install(t.Context(), f.open(t, []string{"claude"}, true, true)))
	assert.Equal(t, "would-create", dry.list[0].action)
	assert.Contains(t, dry.actions(), "would-change")
	_, err := os.Stat(filepath.Join(f.root, workspace.HomeDirName))
	assert.ErrorIs(t, err, os.ErrNotExist, "a dry run wrote the home")

	done := &steps{}
	require.NoError(t, f.init(done, &errOut).Install(t.Context(), f.open(t, []string{"claude"}, true, true)))
	assert.Equal(t, "created", done.list[0].action)
	assert.Equal(t, ".agent-registry/", done.list[0].path)
	assert.FileExists(t, filepath.Join(f.root, workspace.HomeDirName, setup.WrittenByFile))

	check := &steps{}
	in = f.init(check, &errOut)
	in.Check = true
	require.NoError(t, in.Install(t.Context(), f.open(t, []string{"claude"}, true, true)))
	assert.Equal(t, []string{"up-to-date"}, check.actions())
	assert.Empty(t, errOut.String())
}

func TestCheckRefusesDrift(t *testing.T) {
	f := newFixture(t)
	var errOut bytes.Buffer
	rec := &steps{}
	in := f.init(rec, &errOut)
	in.Check = true
	err := in.Install(t.Context(), f.open(t, []string{"claude"}, true, true))
	require.ErrorIs(t, err, report.ErrReported)
	assert.Equal(t, "missing", rec.list[0].action)
	assert.Contains(t, rec.actions(), "out-of-date")
	assert.Equal(t, "agentlock: the set-up is not up to date: run agentlock init with the same options\n", errOut.String())
}

func TestInstallWarnsOfTheBinaryOnPath(t *testing.T) {
	f := newFixture(t)
	var errOut bytes.Buffer
	rec := &steps{}
	in := f.init(rec, &errOut)
	in.Binary = func() (string, error) { return "agentlock is not on PATH", nil }
	require.NoError(t, in.Install(t.Context(), f.open(t, nil, true, true)))
	assert.Equal(t, "agentlock: warning: agentlock is not on PATH\n", errOut.String())

	// With --check the warning is a step of the report, not a line on stderr.
	errOut.Reset()
	rec = &steps{}
	in = f.init(rec, &errOut)
	in.Check, in.Binary = true, func() (string, error) { return "agentlock is not on PATH", nil }
	require.NoError(t, in.Install(t.Context(), f.open(t, nil, true, true)))
	assert.Equal(t, []string{"warning", "up-to-date"}, rec.actions())
	assert.Empty(t, errOut.String())
}

func TestUninstallRemovesWhatInstallWrote(t *testing.T) {
	f := newFixture(t)
	var errOut bytes.Buffer
	require.NoError(t, f.init(&steps{}, &errOut).Install(t.Context(), f.open(t, []string{"claude", "codex"}, true, true)))

	open := func(names []string, whole bool) (*setup.Project, error) {
		return f.open(t, names, whole, false), nil
	}
	dry := &steps{}
	require.NoError(t, (&setup.Uninit{Output: setup.Output{Report: dry, ErrOut: &errOut}, DryRun: true}).Run(t.Context(), open))
	assert.Contains(t, dry.actions(), "would-change")
	assert.Equal(t, "would-remove", dry.list[len(dry.list)-2].action, "the home goes before the .gitignore block: %v", dry.actions())
	assert.DirExists(t, filepath.Join(f.root, workspace.HomeDirName))

	rec := &steps{}
	require.NoError(t, (&setup.Uninit{Output: setup.Output{Report: rec, ErrOut: &errOut}}).Run(t.Context(), open))
	_, err := os.Stat(filepath.Join(f.root, workspace.HomeDirName))
	assert.ErrorIs(t, err, os.ErrNotExist)
	assert.Equal(t, ".gitignore", rec.list[len(rec.list)-1].path, "the .gitignore block goes last")
	assert.NoFileExists(t, filepath.Join(f.root, ".gitignore"))
	assert.Empty(t, errOut.String())
}

func TestUninstallKeepsTheHomeAndItsIgnoreBlockWhileALockIsHeld(t *testing.T) {
	f := newFixture(t)
	var errOut bytes.Buffer
	require.NoError(t, f.init(&steps{}, &errOut).Install(t.Context(), f.open(t, []string{"claude"}, true, true)))
	ws, err := workspace.Open(t.Context(), f.root, f.settings)
	require.NoError(t, err)
	_, _, err = ws.Acquire(t.Context(), []string{filepath.Join(f.root, "a.go")}, "s1")
	require.NoError(t, err)

	rec := &steps{}
	open := func(names []string, whole bool) (*setup.Project, error) { return f.open(t, names, whole, false), nil }
	require.NoError(t, (&setup.Uninit{Output: setup.Output{Report: rec, ErrOut: &errOut}}).Run(t.Context(), open))
	last := rec.list[len(rec.list)-1]
	assert.Equal(t, step{"kept", ".gitignore", "its block stays while .agent-registry/ stays",
		"kept      .gitignore: its block stays while .agent-registry/ stays"}, last)
	assert.DirExists(t, filepath.Join(f.root, workspace.HomeDirName))
}

func TestGitHookInstallNeedsAWorkTree(t *testing.T) {
	gittest.Need(t)
	dir, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	require.NoError(t, os.Mkdir(filepath.Join(dir, workspace.HomeDirName), 0o755))
	p, err := setup.Open(dir, setup.Options{Settings: workspace.Settings{UserHome: t.TempDir()}})
	require.NoError(t, err)
	var errOut bytes.Buffer
	in := &setup.Init{Output: setup.Output{Report: &steps{}, ErrOut: &errOut}, Dir: dir, GitHook: true,
		Binary: func() (string, error) { return "", nil }}
	err = in.Install(t.Context(), p)
	var usage *report.UsageError
	require.ErrorAs(t, err, &usage)
	assert.True(t, usage.Line, "said in one line, without the usage")
	assert.Equal(t, "--git-hook installs git's pre-commit guard, and "+dir+" is in no git work tree: nothing was written", usage.Error())
	assert.NoDirExists(t, filepath.Join(dir, workspace.HomeDirName, "locks"))
}

func TestGitHookInstalledThenUpToDateThenRemoved(t *testing.T) {
	f := newFixture(t)
	var errOut bytes.Buffer
	rec := &steps{}
	in := f.init(rec, &errOut)
	in.GitHook = true
	require.NoError(t, in.Install(t.Context(), f.open(t, nil, true, true)))
	last := rec.list[len(rec.list)-1]
	assert.Equal(t, "installed", last.action)
	assert.Equal(t, filepath.Join(".git", "hooks", "pre-commit"), last.path)

	rec = &steps{}
	in = f.init(rec, &errOut)
	in.GitHook, in.Check = true, true
	require.NoError(t, in.Install(t.Context(), f.open(t, nil, true, true)))
	assert.Equal(t, []string{"up-to-date", "up-to-date"}, rec.actions())

	rec = &steps{}
	open := func(names []string, whole bool) (*setup.Project, error) { return f.open(t, names, whole, false), nil }
	require.NoError(t, (&setup.Uninit{Output: setup.Output{Report: rec, ErrOut: &errOut}, GitHook: true}).Run(t.Context(), open))
	assert.Equal(t, []string{"removed"}, rec.actions(), "uninit --git-hook alone removes the guard and nothing else")
	assert.DirExists(t, filepath.Join(f.root, workspace.HomeDirName))
}

func TestOpenRefusesToMakeTheUserHomeAProject(t *testing.T) {
	home, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	_, err = setup.Open(home, setup.Options{Settings: workspace.Settings{UserHome: home}, NewProject: true})
	var usage *report.UsageError
	require.ErrorAs(t, err, &usage)
	assert.True(t, usage.Line, "said in one line, without the usage")
	assert.True(t, strings.HasPrefix(usage.Error(), home+" is in no git repository, and agentlock will not make it a project"), usage.Error())

	_, err = setup.Open("/", setup.Options{Settings: workspace.Settings{UserHome: home}, NewProject: true})
	require.ErrorAs(t, err, &usage)

	// Without NewProject (uninit) the folder is only looked at.
	_, err = setup.Open(home, setup.Options{Settings: workspace.Settings{UserHome: home}})
	require.NoError(t, err)
}

func TestHomeFlagExpandsTheUserHomeAndRefusesAHomeInUse(t *testing.T) {
	f := newFixture(t)
	var errOut bytes.Buffer
	rec := &steps{}
	in := f.init(rec, &errOut)
	in.Home, in.DryRun = "~/shared", true
	require.NoError(t, in.Install(t.Context(), f.open(t, nil, true, true)))
	assert.Equal(t, step{"would-use-home", filepath.Join(f.home, "shared"), "",
		"would use " + filepath.Join(f.home, "shared") + " as the project's home"}, rec.list[0])

	// The project's own home, named by --home, is no move.
	rec = &steps{}
	in = f.init(rec, &errOut)
	in.Home, in.Check = filepath.Join(f.root, workspace.HomeDirName), true
	require.NoError(t, f.init(&steps{}, &errOut).Install(t.Context(), f.open(t, nil, true, true)))
	require.NoError(t, in.Install(t.Context(), f.open(t, nil, true, true)))
	assert.Equal(t, []string{"up-to-date"}, rec.actions())
}

func TestProblemsAreReportedAndNothingIsWritten(t *testing.T) {
	f := newFixture(t)
	// Claude's settings hold JSON that cannot be merged into.
	require.NoError(t, os.MkdirAll(filepath.Join(f.root, ".claude"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(f.root, ".claude", "settings.json"), []byte("{not json"), 0o644))
	var errOut bytes.Buffer
	rec := &steps{}
	err := f.init(rec, &errOut).Install(t.Context(), f.open(t, []string{"claude"}, true, true))
	require.ErrorIs(t, err, report.ErrReported)
	assert.Empty(t, rec.list)
	assert.Contains(t, errOut.String(), "agentlock: to add the hooks by hand, merge this into .claude/settings.json:\n")
	assert.True(t, strings.HasSuffix(errOut.String(), "agentlock: nothing was written\n"), errOut.String())
	assert.NoDirExists(t, filepath.Join(f.root, workspace.HomeDirName))
}

func TestRecordStoreRefusesWithoutTheEtcdBuild(t *testing.T) {
	f := newFixture(t)
	var errOut bytes.Buffer
	rec := &steps{}
	in := f.init(rec, &errOut)
	in.Store, in.StoreGiven = workspace.StoreSpec{URL: "etcd://127.0.0.1:1/x"}, true
	err := in.RecordStore(t.Context())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "(nothing was changed)")
	assert.NoFileExists(t, filepath.Join(f.root, workspace.HomeDirName, workspace.StoreFile))

	in.DryRun = true
	require.NoError(t, in.RecordStore(t.Context()))
	assert.Equal(t, []step{{"would-set", ".agent-registry/store", "the project's store: etcd://127.0.0.1:1/x",
		"would-set .agent-registry/store: the project's store: etcd://127.0.0.1:1/x"}}, rec.list)
}

func TestRecordScopeOutsideGitIsRefused(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	in := &setup.Init{Output: setup.Output{Report: &steps{}, ErrOut: &bytes.Buffer{}}, Dir: dir, Scope: workspace.ScopeRepository}
	assert.EqualError(t, in.RecordScope(t.Context()), "--scope/--deny-conflicts: "+dir+" is in no git worktree (no .git above it)")
	// Nothing to record: nothing is looked at.
	in.Scope = ""
	assert.NoError(t, in.RecordScope(t.Context()))
}

func TestParseStoreAndCheckScope(t *testing.T) {
	none := func(string) bool { return false }
	only := func(option string) func(string) bool { return func(o string) bool { return o == option } }
	spec, err := setup.ParseStore(workspace.StoreSpec{URL: "files"}, true, none)
	require.NoError(t, err)
	assert.Equal(t, workspace.StoreSpec{}, spec, "files: back to lock files")
	etcd := workspace.StoreSpec{URL: "etcd://h:2379/p", User: "u", DialTimeout: time.Second}
	spec, err = setup.ParseStore(etcd, true, only("user"))
	require.NoError(t, err)
	assert.Equal(t, etcd, spec)
	spec, err = setup.ParseStore(workspace.StoreSpec{User: "u"}, false, none)
	require.NoError(t, err, "no --store, no option: nothing to read")
	assert.Equal(t, workspace.StoreSpec{User: "u"}, spec)
	for _, bad := range []string{"etcd://", "http://h:2379", "", "file:"} {
		_, err := setup.ParseStore(workspace.StoreSpec{URL: bad}, true, none)
		assert.Equal(t, report.ExitUsage, report.ExitCode(err), bad)
		assert.ErrorContains(t, err, "want etcd://host:2379[,host2:2379]/prefix, or files", bad)
	}
	for _, refused := range []struct {
		spec    workspace.StoreSpec
		given   bool
		changed string
		want    string
	}{
		{workspace.StoreSpec{}, false, "cacert", "--cacert goes with --store"},
		{workspace.StoreSpec{URL: "files"}, true, "user", "--user goes with --store etcd://..., not with --store files"},
		{workspace.StoreSpec{URL: "etcd://h:2379/p", DialTimeout: -5 * time.Second}, true, "dial-timeout", "--dial-timeout -5s: must be more than 0 (default 2s)"},
		{workspace.StoreSpec{URL: "etcd://h:2379/p"}, true, "dial-timeout", "--dial-timeout 0s: must be more than 0 (default 2s)"},
	} {
		_, err := setup.ParseStore(refused.spec, refused.given, only(refused.changed))
		assert.Equal(t, report.ExitUsage, report.ExitCode(err), refused.want)
		assert.EqualError(t, err, refused.want)
	}
	for _, name := range setup.StoreOptions() {
		_, err := setup.ParseStore(workspace.StoreSpec{}, false, only(name))
		assert.EqualError(t, err, "--"+name+" goes with --store", "every store option is refused without --store")
	}

	for _, ok := range []string{"", workspace.ScopeRepository, workspace.ScopeCheckout} {
		assert.NoError(t, setup.CheckScope(ok), ok)
	}
	err = setup.CheckScope("worktree")
	assert.Equal(t, report.ExitUsage, report.ExitCode(err))
	assert.EqualError(t, err, `--scope "worktree": want repository or checkout`)
}
