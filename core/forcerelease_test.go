package core

import (
	"errors"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var errChanged = errors.New("changed")

// sameLock allows the release of exactly the lock shown: same owner, same
// stamp.
func sameLock(shown State) func(State) error {
	return func(now State) error {
		if now.Owner != shown.Owner || !now.Stamp.Equal(shown.Stamp) {
			return errChanged
		}
		return nil
	}
}

func TestForceReleaseIfReleasesOnlyTheLockShown(t *testing.T) {
	dir := t.TempDir()
	clock := time.Unix(1_700_000_000, 0)
	l := testLocker(dir, Options{Timeout: time.Minute, Now: func() time.Time { return clock }})
	path := filepath.Join(dir, "a.go")
	_, err := l.Acquire(t.Context(), path, "old")
	require.NoError(t, err)
	shown, err := l.IsLocked(t.Context(), path)
	require.NoError(t, err)

	// The owner renews after the person looked: the lock is not the one
	// shown any more, and stays.
	clock = clock.Add(time.Second)
	_, err = l.Heartbeat(t.Context(), path, "old")
	require.NoError(t, err)
	_, err = l.ForceReleaseIf(t.Context(), path, sameLock(shown))
	require.ErrorIs(t, err, errChanged, "the condition's error comes back unwrapped")
	now, err := l.IsLocked(t.Context(), path)
	require.NoError(t, err)
	assert.Equal(t, "old", now.Owner)

	prev, err := l.ForceReleaseIf(t.Context(), path, sameLock(now))
	require.NoError(t, err)
	assert.Equal(t, "old", prev.Owner)
	after, err := l.IsLocked(t.Context(), path)
	require.NoError(t, err)
	assert.Empty(t, after.Owner)

	// A path without a lock file is not created.
	_, err = l.ForceReleaseIf(t.Context(), filepath.Join(dir, "none"), func(State) error { return errChanged })
	require.ErrorIs(t, err, errChanged)
}

// Many releasers of the same shown lock, racing: exactly one releases it,
// and a lock taken in between by another session is never released.
func TestForceReleaseIfRace(t *testing.T) {
	dir := t.TempDir()
	l := testLocker(dir, Options{Timeout: time.Minute})
	path := filepath.Join(dir, "a.go")
	_, err := l.Acquire(t.Context(), path, "old")
	require.NoError(t, err)
	shown, err := l.IsLocked(t.Context(), path)
	require.NoError(t, err)
	var wins atomic.Int32
	var wg sync.WaitGroup
	start := make(chan struct{})
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			if _, err := l.ForceReleaseIf(t.Context(), path, sameLock(shown)); err == nil {
				wins.Add(1)
			} else {
				assert.ErrorIs(t, err, errChanged)
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		<-start
		for {
			if _, err := l.Acquire(t.Context(), path, "new"); err == nil {
				return
			}
		}
	}()
	close(start)
	wg.Wait()
	assert.Equal(t, int32(1), wins.Load())
	now, err := l.IsLocked(t.Context(), path)
	require.NoError(t, err)
	assert.Equal(t, "new", now.Owner, "the new session's lock is never released by a click on the old one")
}
