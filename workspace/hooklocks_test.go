package workspace

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The policy on hook locks: the process's own values over the project's
// file over the defaults; a file that cannot be used is a problem, and the
// session lifetime (which frees nothing early) stands in for its lifetime.
func TestHookLocksResolution(t *testing.T) {
	home := t.TempDir()
	h, err := Settings{}.hookLocks(home)
	require.NoError(t, err)
	assert.Equal(t, HookLocks{Lifetime: DefaultLifetime, Idle: DefaultHookIdle, Wait: DefaultHookWait,
		LifetimeFrom: "default", IdleFrom: "default", WaitFrom: "default"}, h)

	file := filepath.Join(home, HookLocksFile)
	require.NoError(t, os.WriteFile(file, []byte("# the project's\nlifetime = turn\nidle=30s\n\nwait=off\n"), 0o644))
	h, err = Settings{}.hookLocks(home)
	require.NoError(t, err)
	assert.Equal(t, HookLocks{Lifetime: LifetimeTurn, Idle: 30 * time.Second, Wait: 0,
		LifetimeFrom: file, IdleFrom: file, WaitFrom: file}, h)
	assert.Equal(t, 30*time.Second, h.LockIdle())
	assert.Zero(t, h.GateWait())

	own := HookLockSettings{Lifetime: LifetimeSession, Wait: 2 * time.Second, WaitSet: true}
	h, err = Settings{HookLocks: own}.hookLocks(home)
	require.NoError(t, err)
	assert.Equal(t, HookLocks{Lifetime: LifetimeSession, Idle: 30 * time.Second, Wait: 2 * time.Second,
		LifetimeFrom: HookLocksVar, IdleFrom: file, WaitFrom: HookWaitVar}, h)
	assert.Zero(t, h.LockIdle(), "a session lifetime has no idle bound")
	assert.Zero(t, h.GateWait())

	for _, bad := range []string{"lifetime=forever\n", "idle=-3s\n", "wait=1h\n", "turn\n", "size=3\n"} {
		require.NoError(t, os.WriteFile(file, []byte("lifetime=turn\n"+bad), 0o644))
		h, err = Settings{}.hookLocks(home)
		require.Error(t, err, bad)
		assert.Contains(t, err.Error(), file, bad)
		assert.Equal(t, LifetimeSession, h.Lifetime, bad)
	}
}

// The variables' values: a lifetime by name, durations or "off".
func TestParseHookLockValues(t *testing.T) {
	l, err := ParseLifetime(HookLocksVar, " Turn ")
	require.NoError(t, err)
	assert.Equal(t, LifetimeTurn, l)
	_, err = ParseLifetime(HookLocksVar, "edit")
	assert.EqualError(t, err, `AGENTLOCK_HOOK_LOCKS="edit" is invalid: want turn or session`)

	d, set, err := ParseHookIdle(HookIdleVar, "")
	require.NoError(t, err)
	assert.False(t, set)
	assert.Zero(t, d)
	d, set, err = ParseHookIdle(HookIdleVar, "off")
	require.NoError(t, err)
	assert.True(t, set)
	assert.Zero(t, d)
	d, set, err = ParseHookIdle(HookIdleVar, "90")
	require.NoError(t, err)
	assert.True(t, set)
	assert.Equal(t, 90*time.Second, d)
	_, _, err = ParseHookWait(HookWaitVar, "25s")
	require.Error(t, err, "past MaxHookWait")
	_, _, err = ParseHookWait(HookWaitVar, "soon")
	require.Error(t, err)
}
