package core

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/store"
)

// A hook's acquisition of a lock its session took explicitly keeps it
// explicit; releasing what the hooks took leaves the explicit ones.
func TestHowLocksWereTaken(t *testing.T) {
	l, _, _ := areaLocker(t)
	ctx := t.Context()
	hook := Claim{Session: "s1", Taken: store.TakenByHook}
	_, err := l.AcquireClaim(ctx, []string{"a.go", "b.go"}, hook)
	require.NoError(t, err)
	_, err = l.Acquire(ctx, "b.go", "s1") // explicitly, over the hook's
	require.NoError(t, err)
	_, err = l.AcquireClaim(ctx, []string{"b.go", "c.go"}, hook) // the hook again: b.go stays explicit
	require.NoError(t, err)
	_, err = l.AcquireClaim(ctx, []string{"d.go"}, hook)
	require.NoError(t, err)
	_, err = l.AcquireClaim(ctx, []string{"x.go"}, Claim{Session: "s2", Taken: store.TakenByHook})
	require.NoError(t, err)

	released, err := l.ReleaseSessionTaken(ctx, "s1", store.TakenByHook)
	require.NoError(t, err)
	var names []string
	for _, s := range released {
		names = append(names, s.Path[len(s.Path)-4:])
	}
	assert.ElementsMatch(t, []string{"a.go", "c.go", "d.go"}, names, "the hook-taken locks of s1, no other")
	for path, owner := range map[string]string{"a.go": "", "b.go": "s1", "x.go": "s2"} {
		st, err := l.IsLocked(ctx, path)
		require.NoError(t, err)
		assert.Equal(t, owner, st.Owner, path)
	}
}
