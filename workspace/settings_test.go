package workspace

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/core"
)

func TestParseTimeout(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want time.Duration
	}{
		{"", core.DefaultTimeout}, {" 120 ", 120 * time.Second}, {"0.5", 500 * time.Millisecond},
		{"2m", 2 * time.Minute}, {"0.1", MinTimeout}, {"168h", MaxTimeout},
	} {
		d, err := ParseTimeout("AGENTLOCK_TIMEOUT", tc.in)
		require.NoError(t, err, tc.in)
		assert.Equal(t, tc.want, d, tc.in)
	}
	for _, in := range []string{"-5", "0", "0.05", "NaN", "Inf", "-Inf", "1e30", "169h", "50ms", "soon"} {
		d, err := ParseTimeout("--timeout", in)
		require.Error(t, err, in)
		assert.Contains(t, err.Error(), `--timeout="`+in+`" is invalid`)
		assert.Equal(t, core.DefaultTimeout, d, "an invalid value comes back with the default")
	}
	_, err := ParseTimeout("AGENTLOCK_TIMEOUT", "-5")
	assert.EqualError(t, err, `AGENTLOCK_TIMEOUT="-5" is invalid: it must be from 0.1 s to 604800 s (seconds, or a duration from 100ms to 168h0m0s)`)
	_, err = ParseTimeout("AGENTLOCK_TIMEOUT", "soon")
	assert.EqualError(t, err, `AGENTLOCK_TIMEOUT="soon" is invalid: it must be seconds (120) or a duration (2m), from 0.1 s to 604800 s`)
}

func TestParseLockWaitAndConflictCache(t *testing.T) {
	d, err := ParseLockWait("")
	require.NoError(t, err)
	assert.Zero(t, d)
	d, err = ParseLockWait("2s")
	require.NoError(t, err)
	assert.Equal(t, 2*time.Second, d)
	_, err = ParseLockWait("2h")
	assert.ErrorContains(t, err, "AGENTLOCK_LOCK_WAIT")

	d, err = ParseConflictCache("")
	require.NoError(t, err)
	assert.Zero(t, d, "empty: the default")
	d, err = ParseConflictCache("0")
	require.NoError(t, err)
	assert.Negative(t, d, "0 caches nothing")
	d, err = ParseConflictCache("30s")
	require.NoError(t, err)
	assert.Equal(t, 30*time.Second, d)
	_, err = ParseConflictCache("2m")
	assert.ErrorContains(t, err, "AGENTLOCK_CONFLICT_CACHE")
}

func TestSettingsAbsoluteFromTheProjectRoot(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	require.NoError(t, os.Mkdir(filepath.Join(root, ".git"), 0o755))
	sub := filepath.Join(root, "src", "deep")
	require.NoError(t, os.MkdirAll(sub, 0o755))
	t.Chdir(sub)
	s := Settings{LockDir: "state/locks", RegistryPath: "/abs/registry.md"}
	require.NoError(t, s.Absolute())
	assert.Equal(t, filepath.Join(root, "state", "locks"), s.LockDir, "relative to the project root, not the working directory")
	assert.Equal(t, "/abs/registry.md", s.RegistryPath)
	assert.Empty(t, s.Home)

	// Outside any project: the working directory.
	out, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	t.Chdir(out)
	s = Settings{Home: "h"}
	require.NoError(t, s.Absolute())
	assert.Equal(t, filepath.Join(out, "h"), s.Home)
}

func TestSessionEditChangesOnlyTheNamedFields(t *testing.T) {
	s := core.Session{WorkingOn: "a", Status: "OnWorking", Provider: "p", Space: []string{"x"}}
	s.Todo.Past = []string{"done"}
	SessionEdit{"working-on": "b", "todo-present": " t1 , ,t2", "space": ""}.Apply(&s)
	assert.Equal(t, "b", s.WorkingOn)
	assert.Equal(t, "OnWorking", s.Status)
	assert.Equal(t, "p", s.Provider)
	assert.Equal(t, []string{"t1", "t2"}, s.Todo.Present)
	assert.Equal(t, []string{"done"}, s.Todo.Past, "each todo list is replaced on its own")
	assert.Equal(t, []string{}, s.Space, "an empty value empties the list")

	for _, name := range SessionEditFields {
		var s core.Session
		SessionEdit{name: "v"}.Apply(&s)
		assert.NotEqual(t, core.Session{}, s, "field %s changes nothing", name)
	}
}

func TestUndoReleasesOnlyWhatWasTaken(t *testing.T) {
	root, ws := newProject(t)
	a, b := filepath.Join(root, "a.go"), filepath.Join(root, "b.go")
	_, _, err := ws.Acquire(t.Context(), []string{a}, "s1")
	require.NoError(t, err)
	leases, _, err := ws.Acquire(t.Context(), []string{a, b}, "s1")
	require.NoError(t, err)
	undone, err := ws.Undo(t.Context(), leases, "s1")
	require.NoError(t, err)
	assert.True(t, undone)
	st, err := ws.Locker().IsLocked(t.Context(), b)
	require.NoError(t, err)
	assert.Empty(t, st.Owner, "the lock this call took is released")
	st, err = ws.Locker().IsLocked(t.Context(), a)
	require.NoError(t, err)
	assert.Equal(t, "s1", st.Owner, "the renewed one stays")

	leases, _, err = ws.Acquire(t.Context(), []string{a}, "s1")
	require.NoError(t, err)
	undone, err = ws.Undo(t.Context(), leases, "s1")
	require.NoError(t, err)
	assert.False(t, undone, "a renewal takes nothing")
}

// The program hooks should find: this one, or in the etcd build the front
// that handed over to it.
func TestSelfProgram(t *testing.T) {
	self := func() (string, error) { return "/bin/agentlock-here", nil }
	env := []string{FrontVar + "=/usr/bin/agentlock"}
	got, err := SelfProgram(env, self)
	require.NoError(t, err)
	if EtcdBuild {
		assert.Equal(t, "/usr/bin/agentlock", got)
	} else {
		assert.Equal(t, "/bin/agentlock-here", got, "the default build is the front itself")
	}
	got, err = SelfProgram(nil, self)
	require.NoError(t, err)
	assert.Equal(t, "/bin/agentlock-here", got)
	_, err = SelfProgram(nil, func() (string, error) { return "", errors.New("no /proc") })
	assert.ErrorContains(t, err, "find this program's file: no /proc")
}

// TestParseSecondsSaysWhyItRefuses: the one parser behind the settings
// and the command line's duration flags tells each refusal apart, so
// that each caller words its own message.
func TestParseSecondsSaysWhyItRefuses(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want time.Duration
		err  error
	}{
		{"45", 45 * time.Second, nil}, {"1.5", 1500 * time.Millisecond, nil}, {"30s", 30 * time.Second, nil}, {"1", time.Second, nil},
		{"60", time.Minute, nil}, {"1m", time.Minute, nil},
		{" 5", 0, ErrNotDuration}, {"soon", 0, ErrNotDuration}, {"1000000000h", 0, ErrNotDuration},
		{"NaN", 0, ErrNoDuration}, {"inf", 0, ErrNoDuration}, {"-Inf", 0, ErrNoDuration}, {"1e400", 0, ErrNoDuration},
		{"0.5", 0, ErrBelowMin}, {"-5", 0, ErrBelowMin}, {"999ms", 0, ErrBelowMin},
		{"60.001", 0, ErrAboveMax}, {"1e30", 0, ErrAboveMax}, {"61s", 0, ErrAboveMax},
	} {
		d, err := ParseSeconds(tc.in, time.Second, time.Minute)
		if tc.err != nil {
			assert.ErrorIs(t, err, tc.err, tc.in)
			continue
		}
		require.NoError(t, err, tc.in)
		assert.Equal(t, tc.want, d, tc.in)
	}
}

// The project's timeout file holds what AGENTLOCK_TIMEOUT holds: seconds
// or a duration; anything else is an error naming the file.
func TestProjectTimeoutReadsSecondsAndDurations(t *testing.T) {
	home := t.TempDir()
	file := filepath.Join(home, TimeoutFile)
	d, err := ProjectTimeout(home)
	require.NoError(t, err)
	assert.Zero(t, d, "no record")
	for text, want := range map[string]time.Duration{"300\n": 300 * time.Second, "2m0s\n": 2 * time.Minute, " 0.5 ": 500 * time.Millisecond} {
		require.NoError(t, os.WriteFile(file, []byte(text), 0o644))
		d, err := ProjectTimeout(home)
		require.NoError(t, err, "%q", text)
		assert.Equal(t, want, d, "%q", text)
	}
	for _, text := range []string{"ten minutes", "-5", "0", "NaN", "1000h", ""} {
		require.NoError(t, os.WriteFile(file, []byte(text), 0o644))
		_, err := ProjectTimeout(home)
		require.Error(t, err, "%q", text)
		assert.Contains(t, err.Error(), file)
	}
}
