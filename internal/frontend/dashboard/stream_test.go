package dashboard

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A stream that falls behind is never cut: past maxPending frames its
// queue becomes one resync marker, and it goes on receiving after it.
func TestSlowStreamGetsResyncNotCut(t *testing.T) {
	srv := newFixture(t, Options{}).srv
	sub, stop := srv.subscribe()
	defer stop()
	srv.mu.Lock()
	for range maxPending + 10 {
		sub.push([][]byte{sseFrame("lock", Event{Kind: "event"})})
	}
	srv.mu.Unlock()
	frames := srv.nextFrames(sub)
	require.Len(t, frames, 1)
	assert.Contains(t, string(frames[0]), "event: resync")
	assert.Contains(t, string(frames[0]), fmt.Sprintf(`"dropped":%d`, maxPending+10))
	srv.mu.Lock()
	_, subscribed := srv.subs[sub]
	sub.push([][]byte{sseFrame("change", map[string]any{"kind": "change"})})
	srv.mu.Unlock()
	assert.True(t, subscribed, "still subscribed")
	frames = srv.nextFrames(sub)
	require.Len(t, frames, 1)
	assert.Contains(t, string(frames[0]), "event: change", "frames flow again after the resync")
}
