package core

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/store"
)

// heldRelation returns the relation of the refusal err, failing the test
// when err is no *HeldError naming owner.
func heldRelation(t *testing.T, err error, owner string) Relation {
	t.Helper()
	var held *HeldError
	require.ErrorAs(t, err, &held)
	assert.Equal(t, owner, held.Owner)
	return held.Relation
}

func TestRelativesRules(t *testing.T) {
	l, project, _ := areaLocker(t)
	ctx := t.Context()
	const p = "claude-1"
	a, b := ChildSession(p, "a"), ChildSession(p, "b")
	hookOf := func(id string) Claim { return Claim{Session: id, Parent: ParentOf(id), Taken: store.TakenByHook} }
	parentHook := Claim{Session: p, Taken: store.TakenByHook}

	// Siblings exclude each other, as other sessions do.
	_, err := l.AcquireClaim(ctx, []string{"s.go"}, hookOf(a))
	require.NoError(t, err)
	_, err = l.AcquireClaim(ctx, []string{"s.go"}, hookOf(b))
	assert.Equal(t, Sibling, heldRelation(t, err, a))
	assert.ErrorContains(t, err, "is locked by "+a+", another sub-agent of your session")

	// The parent may not take what a live child holds.
	_, err = l.AcquireClaim(ctx, []string{"s.go"}, parentHook)
	assert.Equal(t, Child, heldRelation(t, err, a))
	_, err = l.Acquire(ctx, "s.go", p)
	assert.Equal(t, Child, heldRelation(t, err, a))

	// A child takes over what its parent's hooks took: it works for it.
	_, err = l.AcquireClaim(ctx, []string{"h.go"}, parentHook)
	require.NoError(t, err)
	leases, err := l.AcquireClaim(ctx, []string{"h.go"}, hookOf(b))
	require.NoError(t, err)
	assert.Equal(t, p, leases[0].FromParent)
	st, err := l.IsLocked(ctx, "h.go")
	require.NoError(t, err)
	assert.Equal(t, b, st.Owner)
	_, err = l.AcquireClaim(ctx, []string{"h.go"}, hookOf(a))
	assert.Equal(t, Sibling, heldRelation(t, err, b), "and its siblings are then refused")

	// Never what the parent took explicitly, nor a lock whose note says
	// nothing (read as explicit).
	_, err = l.Acquire(ctx, "x.go", p)
	require.NoError(t, err)
	_, err = l.AcquireClaim(ctx, []string{"x.go"}, parentHook) // its hook afterwards: still explicit
	require.NoError(t, err)
	_, err = l.AcquireClaim(ctx, []string{"x.go"}, hookOf(a))
	assert.Equal(t, Parent, heldRelation(t, err, p))
	assert.ErrorContains(t, err, "is locked by "+p+", the session you work for")

	// An id of the child's form typed by a person is no sub-agent: only
	// a resolved parent (Claim.Parent) takes over.
	_, err = l.AcquireClaim(ctx, []string{"u.go"}, parentHook)
	require.NoError(t, err)
	_, err = l.AcquireClaim(ctx, []string{"u.go"}, Claim{Session: a, Taken: store.TakenByHook})
	assert.Equal(t, Unrelated, heldRelation(t, err, p))

	// Areas: a child works inside its parent's area; a sibling's area
	// excludes it like another session's.
	_, err = l.Acquire(ctx, "src/auth/", p)
	require.NoError(t, err)
	_, err = l.AcquireClaim(ctx, []string{"src/auth/login.go"}, hookOf(a))
	require.NoError(t, err, "a sub-agent works inside its parent's area")
	_, err = l.AcquireClaim(ctx, []string{"src/auth/login.go"}, hookOf(b))
	assert.Equal(t, Sibling, heldRelation(t, err, a))
	_, err = l.Acquire(ctx, "lib/", a)
	require.NoError(t, err)
	_, err = l.AcquireClaim(ctx, []string{"lib/x.go"}, hookOf(b))
	assert.Equal(t, Sibling, heldRelation(t, err, a))
	_, err = l.AcquireClaim(ctx, []string{"lib/x.go"}, parentHook)
	assert.Equal(t, Child, heldRelation(t, err, a))

	// A parent's release of all ends its children's locks; a child's,
	// its own only.
	other := Claim{Session: "codex-9", Taken: store.TakenByHook}
	_, err = l.AcquireClaim(ctx, []string{"o.go"}, other)
	require.NoError(t, err)
	released, err := l.ReleaseSession(ctx, b)
	require.NoError(t, err)
	assert.Len(t, released, 1, "b's h.go")
	released, err = l.ReleaseSession(ctx, p)
	require.NoError(t, err)
	owners := map[string]int{}
	for _, s := range released {
		owners[s.Owner]++
	}
	assert.Equal(t, map[string]int{p: 3, a: 3}, owners, "the parent's x.go, u.go, src/auth/ and a's s.go, login.go, lib/")
	for _, path := range []string{"s.go", "x.go", filepath.Join(project, "src/auth/login.go")} {
		st, err := l.IsLocked(ctx, path)
		require.NoError(t, err)
		assert.False(t, st.Locked(), path)
	}
	st, err = l.IsLocked(ctx, "o.go")
	require.NoError(t, err)
	assert.Equal(t, "codex-9", st.Owner, "another session's lock is never touched")
}
