package workspace

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRenewPathsReportsEachLostLockAndRenewsTheRest(t *testing.T) {
	root, ws := newProject(t)
	mine, theirs, none := filepath.Join(root, "a.go"), filepath.Join(root, "b.go"), filepath.Join(root, "c.go")
	_, _, err := ws.Acquire(t.Context(), []string{mine}, "me")
	require.NoError(t, err)
	_, _, err = ws.Acquire(t.Context(), []string{theirs}, "other")
	require.NoError(t, err)

	got, err := ws.RenewPaths(t.Context(), []string{theirs, none, mine}, "me")
	require.NoError(t, err)
	require.Len(t, got, 3)
	require.NotNil(t, got[0].Refused)
	assert.Equal(t, "other", got[0].Refused.Owner)
	assert.True(t, got[0].Lost())
	assert.True(t, got[1].NoLock)
	assert.Equal(t, none, got[1].Path, "a path without a lock is named by its real path")
	assert.False(t, got[2].Lost())
	assert.Equal(t, mine, got[2].Lease.Path)
	assert.Equal(t, "me", got[2].Lease.Session)
}

func TestRenewSessionRenewsEveryLockOfTheSessionOnly(t *testing.T) {
	root, ws := newProject(t)
	_, _, err := ws.Acquire(t.Context(), []string{filepath.Join(root, "a.go"), filepath.Join(root, "src") + "/"}, "me")
	require.NoError(t, err)
	_, _, err = ws.Acquire(t.Context(), []string{filepath.Join(root, "b.go")}, "other")
	require.NoError(t, err)
	renewed, notices, err := ws.RenewSession(t.Context(), "me")
	require.NoError(t, err)
	assert.Empty(t, notices)
	assert.Len(t, renewed, 2)
	for _, st := range renewed {
		assert.Equal(t, "me", st.Owner)
	}
	renewed, _, err = ws.RenewSession(t.Context(), "nobody")
	require.NoError(t, err)
	assert.Empty(t, renewed)
}

func TestKeepRenewingStopsWhenTheWatchedProcessIsGone(t *testing.T) {
	renewals, polls := 0, 0
	err := KeepRenewing(context.Background(), MinRenewEvery, func() bool { polls++; return polls < 5 }, func() error { renewals++; return nil })
	require.NoError(t, err)
	assert.GreaterOrEqual(t, renewals, 1, "the first renewal is immediate")
	assert.Equal(t, 5, polls)
}

func TestKeepRenewingReturnsTheFirstFailedRenewal(t *testing.T) {
	lost := errors.New("lost")
	renewals := 0
	err := KeepRenewing(context.Background(), MinRenewEvery, func() bool { return true }, func() error {
		renewals++
		if renewals == 3 {
			return lost
		}
		return nil
	})
	assert.ErrorIs(t, err, lost)
	assert.Equal(t, 3, renewals)
}

func TestKeepRenewingEndsWithItsContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	renewals := 0
	err := KeepRenewing(ctx, time.Hour, func() bool { return true }, func() error { renewals++; cancel(); return nil })
	require.NoError(t, err)
	assert.Equal(t, 1, renewals)
}

func TestKeepRenewingRefusesAnIntervalOutOfBounds(t *testing.T) {
	for _, every := range []time.Duration{0, MinRenewEvery - 1, MaxRenewEvery + 1} {
		err := KeepRenewing(context.Background(), every, func() bool { return true }, func() error {
			t.Fatal("renewed with a refused interval")
			return nil
		})
		assert.Error(t, err, every)
	}
}

func TestCheckRenewEveryNamesTheBounds(t *testing.T) {
	for _, every := range []time.Duration{MinRenewEvery, time.Second, MaxRenewEvery} {
		assert.NoError(t, CheckRenewEvery("--every", every), every)
	}
	assert.EqualError(t, CheckRenewEvery("--every", 50*time.Millisecond), "--every 50ms: must be from 100ms to 24h0m0s")
	assert.EqualError(t, CheckRenewEvery("--every", 0), "--every 0s: must be from 100ms to 24h0m0s")
}
