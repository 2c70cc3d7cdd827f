package sessionarg

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/report"
	"github.com/agentlock/agentlock/session"
)

// argErr requires err to be a usage error and returns it.
func argErr(t *testing.T, err error) *report.UsageError {
	t.Helper()
	var ae *report.UsageError
	require.ErrorAs(t, err, &ae)
	return ae
}

func TestPathsAndSessionOriginalForm(t *testing.T) {
	t.Chdir(t.TempDir())
	require.NoError(t, os.WriteFile("exists", nil, 0o644))

	// No session known: the second of two arguments is the session.
	paths, s, err := Args{}.PathsAndSession("agentlock acquire", []string{"a.go", "s1"}, NewLock)
	require.NoError(t, err)
	assert.Equal(t, []string{"a.go"}, paths)
	assert.Equal(t, "s1", s)

	known := Args{Session: "s1", Source: session.SourceEnv, Resolved: session.Identity{ID: "s1", Source: session.SourceEnv}}
	paths, s, err = known.PathsAndSession("agentlock acquire", []string{"a.go", "s1"}, NewLock)
	require.NoError(t, err)
	assert.Equal(t, []string{"a.go"}, paths)
	assert.Equal(t, "s1", s)

	// A second path: it exists, or holds a separator.
	for _, second := range []string{"exists", "dir/b.go"} {
		paths, _, err = known.PathsAndSession("agentlock acquire", []string{"a.go", second}, NewLock)
		require.NoError(t, err)
		assert.Equal(t, []string{"a.go", second}, paths)
	}

	// Another id, typed: refused in one line naming the command to run.
	_, _, err = known.PathsAndSession("agentlock acquire", []string{"my file.go", "s2"}, NewLock)
	ae := argErr(t, err)
	assert.True(t, ae.Line)
	assert.Equal(t, `you are session s1 (from AGENTLOCK_SESSION), not s2: run 'agentlock acquire "my file.go"' (if s2 is a file to create, write it as ./s2)`, ae.Error())

	// --session given: two arguments are two paths.
	flag := Args{Session: "s1", Source: session.SourceFlag}
	paths, _, err = flag.PathsAndSession("agentlock acquire", []string{"a.go", "s2"}, NewLock)
	require.NoError(t, err)
	assert.Equal(t, []string{"a.go", "s2"}, paths)
}

func TestPathsAndSessionRefusals(t *testing.T) {
	for _, tc := range []struct {
		args []string
		a    Args
		want string
	}{
		{nil, Args{Session: "s1"}, "at least one path is required"},
		// The second of two is the place of the original form's session
		// (issue 37): unless --session gave one, '' there is an empty id.
		{[]string{"a", ""}, Args{Session: "s1"}, "the session id is empty ('' after the path): name the session, or leave it out for the one agentlock finds (agentlock whoami)"},
		{[]string{"a", ""}, Args{}, "the session id is empty ('' after the path): name the session, or leave it out for the one agentlock finds (agentlock whoami)"},
		{[]string{"a", ""}, Args{Session: "s1", Source: session.SourceFlag}, "a path is empty ('' on the command line): name a file or a folder"},
		{[]string{"", "s1"}, Args{}, "a path is empty ('' on the command line): name a file or a folder"},
		{[]string{"a", "b", ""}, Args{Session: "s1"}, "a path is empty ('' on the command line): name a file or a folder"},
		{[]string{"a"}, Args{}, "no session id: pass --session ID, set AGENTLOCK_SESSION, or use 'agentlock acquire <path> <session>' (agentlock whoami explains)"},
	} {
		_, _, err := tc.a.PathsAndSession("agentlock acquire", tc.args, NewLock)
		ae := argErr(t, err)
		assert.False(t, ae.Line, tc.want)
		assert.Equal(t, tc.want, ae.Error())
	}
	// The strict rule creates locks; an existing lock's id may hold a space.
	_, _, err := Args{Session: "has space"}.PathsAndSession("agentlock acquire", []string{"a"}, NewLock)
	argErr(t, err)
	_, s, err := Args{Session: "has space"}.PathsAndSession("agentlock release", []string{"a"}, ExistingLock)
	require.NoError(t, err)
	assert.Equal(t, "has space", s)
}

func TestFlagConflict(t *testing.T) {
	a := Args{Session: "other", Source: session.SourceFlag, Context: session.Identity{ID: "claude-abc", Source: "CLAUDE_CODE_SESSION_ID"}}
	ae := argErr(t, a.FlagConflict("agentlock finish"))
	assert.True(t, ae.Line)
	assert.Equal(t, "you are session claude-abc (from CLAUDE_CODE_SESSION_ID), not other: run 'agentlock finish' (without --session)", ae.Error())
	a.Session = "claude-abc"
	assert.NoError(t, a.FlagConflict("agentlock finish"))
	assert.NoError(t, Args{Session: "x"}.FlagConflict("agentlock finish"), "no context: nothing to conflict with")
}

func TestPathsAndSessionForCheck(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	paths, s, err := Args{}.PathsAndSession("agentlock check", []string{"a.go"}, AnySession)
	require.NoError(t, err)
	assert.Equal(t, []string{"a.go"}, paths)
	assert.Empty(t, s, "check needs no session")

	paths, s, err = Args{}.PathsAndSession("agentlock check", []string{"a.go", "s1"}, AnySession)
	require.NoError(t, err)
	assert.Equal(t, []string{"a.go"}, paths)
	assert.Equal(t, "s1", s)

	paths, _, err = Args{}.PathsAndSession("agentlock check", []string{"a.go", filepath.Join("d", "b.go")}, AnySession)
	require.NoError(t, err)
	assert.Len(t, paths, 2)

	_, _, err = Args{Session: "s1", Source: session.SourceEnv}.PathsAndSession("agentlock check", []string{"a.go", "s2"}, AnySession)
	assert.True(t, argErr(t, err).Line)
	_, _, err = Args{}.PathsAndSession("agentlock check", nil, AnySession)
	assert.Equal(t, "at least one path is required", argErr(t, err).Error())
}

func TestSessionArgAndCommandSession(t *testing.T) {
	s, err := Args{}.SessionArg("agentlock finish", "s1")
	require.NoError(t, err)
	assert.Equal(t, "s1", s)

	_, err = Args{Session: "s1", Source: session.SourceFlag}.SessionArg("agentlock finish", "s2")
	ae := argErr(t, err)
	assert.False(t, ae.Line)
	assert.Equal(t, "two session ids: s2 and --session s1", ae.Error())

	env := Args{Session: "s1", Source: session.SourceEnv, Resolved: session.Identity{ID: "s1", Source: session.SourceEnv}}
	_, err = env.SessionArg("agentlock finish", "s2")
	ae = argErr(t, err)
	assert.True(t, ae.Line)
	assert.Equal(t, "you are session s1 (from AGENTLOCK_SESSION), not s2: run 'agentlock finish'", ae.Error())

	s, err = env.CommandSession("agentlock finish", "")
	require.NoError(t, err)
	assert.Equal(t, "s1", s)
	_, err = Args{}.CommandSession("agentlock finish", "")
	assert.Equal(t, ErrNoSession().Error(), argErr(t, err).Error())
}

func TestSessionAndText(t *testing.T) {
	for _, tc := range []struct {
		a             Args
		args          []string
		session, text string
		hasText       bool
	}{
		{Args{}, []string{"s1"}, "s1", "", false},
		{Args{}, []string{"s1", "tests"}, "s1", "tests", true},
		{Args{Session: "s1"}, []string{"s1"}, "s1", "", false},
		{Args{Session: "s1"}, []string{"now tests"}, "s1", "now tests", true},
		{Args{Session: "s1"}, nil, "s1", "", false},
	} {
		s, text, has, err := tc.a.SessionAndText("agentlock update", tc.args)
		require.NoError(t, err, tc.args)
		assert.Equal(t, []any{tc.session, tc.text, tc.hasText}, []any{s, text, has}, tc.args)
	}
	env := Args{Session: "s1", Source: session.SourceEnv, Resolved: session.Identity{ID: "s1", Source: session.SourceEnv}}
	_, _, _, err := env.SessionAndText("agentlock update", []string{"s2", "now tests"})
	assert.Equal(t, `you are session s1 (from AGENTLOCK_SESSION), not s2: run 'agentlock update "now tests"'`, argErr(t, err).Error())
}

func TestAllSession(t *testing.T) {
	env := Args{Session: "s1", Source: session.SourceEnv, Resolved: session.Identity{ID: "s1", Source: session.SourceEnv}}
	s, err := env.AllSession("agentlock release", nil)
	require.NoError(t, err)
	assert.Equal(t, "s1", s)
	s, err = Args{}.AllSession("agentlock release", []string{"s2"})
	require.NoError(t, err)
	assert.Equal(t, "s2", s, "the original's positional session")
	_, err = env.AllSession("agentlock release", []string{"s2"})
	assert.True(t, argErr(t, err).Line)
	assert.Equal(t, "you are session s1 (from AGENTLOCK_SESSION), not s2: run 'agentlock release --all'", argErr(t, err).Error(),
		"the command suggested releases every lock of the session, as asked")
	_, err = env.AllSession("agentlock release", []string{"src/a.go"})
	assert.Equal(t, "--all takes no paths: run 'agentlock release --all' to release every lock of session s1, or 'agentlock release src/a.go' to release that one",
		argErr(t, err).Error())
	_, err = env.AllSession("agentlock release", []string{"a", "b"})
	assert.Equal(t, "--all takes no paths", argErr(t, err).Error())
	_, err = Args{}.AllSession("agentlock release", nil)
	assert.Equal(t, ErrNoSession().Error(), argErr(t, err).Error())
	ctx := Args{Session: "x", Source: session.SourceFlag, Context: session.Identity{ID: "claude-1", Source: "CLAUDE_CODE_SESSION_ID"}}
	_, err = ctx.AllSession("agentlock release", nil)
	assert.Contains(t, argErr(t, err).Error(), "run 'agentlock release --all' (without --session)")
}

// heartbeat --all takes no positional argument at all, not even a session.
func TestAllOnly(t *testing.T) {
	env := Args{Session: "s1", Source: session.SourceEnv, Resolved: session.Identity{ID: "s1", Source: session.SourceEnv}}
	s, err := env.AllOnly("agentlock heartbeat", nil)
	require.NoError(t, err)
	assert.Equal(t, "s1", s)
	_, err = env.AllOnly("agentlock heartbeat", []string{"s1"})
	assert.Equal(t, "--all takes no paths", argErr(t, err).Error())
	assert.False(t, argErr(t, err).Line)
	_, err = Args{}.AllOnly("agentlock heartbeat", nil)
	assert.Equal(t, ErrNoSession().Error(), argErr(t, err).Error())
	ctx := Args{Session: "x", Source: session.SourceFlag, Context: session.Identity{ID: "claude-1", Source: "CLAUDE_CODE_SESSION_ID"}}
	_, err = ctx.AllOnly("agentlock heartbeat", nil)
	assert.True(t, argErr(t, err).Line)
	assert.Contains(t, argErr(t, err).Error(), "run 'agentlock heartbeat --all' (without --session)")
}

func TestLoopArgs(t *testing.T) {
	for _, tc := range []struct {
		args     []string
		rest     []string
		interval string
	}{
		{[]string{"a.go"}, []string{"a.go"}, ""},
		{[]string{"a.go", "30"}, []string{"a.go"}, "30"},
		{[]string{"a.go", "1.5"}, []string{"a.go"}, "1.5"},
		{[]string{"a.go", "2m"}, []string{"a.go"}, "2m"},
		{[]string{"a.go", "claude-1"}, []string{"a.go", "claude-1"}, ""},
		{[]string{"a.go", "claude-1", "30"}, []string{"a.go", "claude-1"}, "30"},
	} {
		rest, interval := LoopArgs(tc.args)
		assert.Equal(t, tc.rest, rest, tc.args)
		assert.Equal(t, tc.interval, interval, tc.args)
	}
}
