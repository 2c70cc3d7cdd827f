package filestore

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/store"
)

// A session's versions are kept per path (a later one replaces the
// earlier), with when it began; Forget drops them all; the changes of a
// path keep one record per kind.
func TestVersionsRoundTrip(t *testing.T) {
	s, dir := testLocks(t)
	ctx := t.Context()
	at := time.Unix(1_800_000_000, 5)
	require.NoError(t, s.See(ctx, "s1", at, []store.Version{{Path: "/p/a", Digest: "d1", At: at}, {Path: "/p/b", Digest: "b1", At: at}}))
	require.NoError(t, s.See(ctx, "s1", at.Add(time.Hour), []store.Version{{Path: "/p/a", Digest: "d2", At: at.Add(time.Second)}}))
	view, err := s.Seen(ctx, "s1", []store.Key{{Path: "/p/a"}, {Path: "/p/c"}})
	require.NoError(t, err)
	assert.True(t, view.Since.Equal(at), "the first start stands")
	require.Len(t, view.Versions, 1, "only the paths asked, those it has")
	assert.Equal(t, "d2", view.Versions[0].Digest)
	assert.Empty(t, view.Damaged)

	other, err := s.Seen(ctx, "s2", []store.Key{{Path: "/p/a"}})
	require.NoError(t, err)
	assert.Empty(t, other.Versions, "versions are per session")
	assert.True(t, other.Since.IsZero())

	require.NoError(t, s.Change(ctx, []store.Change{{Path: "/p/a", Session: "s2", At: at, Digest: "d3"}}))
	require.NoError(t, s.Change(ctx, []store.Change{{Path: "/p/a", Session: "s3", At: at, Digest: "d0", Kind: store.ChangeHold}}))
	require.NoError(t, s.Change(ctx, []store.Change{{Path: "/p/a", Session: "s4", At: at, Digest: "d4"}}))
	cs, ds, err := s.Changed(ctx, []store.Key{{Path: "/p/a"}, {Path: "/p/none"}})
	require.NoError(t, err)
	assert.Empty(t, ds)
	require.Len(t, cs, 2, "the last edit and the last hold")
	for _, c := range cs {
		if c.Kind == store.ChangeHold {
			assert.Equal(t, "s3", c.Session)
		} else {
			assert.Equal(t, "s4", c.Session, "an edit replaces the edit before")
		}
	}

	entries, err := os.ReadDir(filepath.Join(dir, VersionsDirName))
	require.NoError(t, err)
	for _, e := range entries {
		assert.True(t, IsVersionsFileName(e.Name()), e.Name())
	}
	scanned, err := s.Scan(ctx)
	require.NoError(t, err)
	assert.Empty(t, scanned, "versions are no locks")

	require.NoError(t, s.Forget(ctx, "s1"))
	view, err = s.Seen(ctx, "s1", []store.Key{{Path: "/p/a"}})
	require.NoError(t, err)
	assert.Empty(t, view.Versions)
	require.NoError(t, s.Forget(ctx, "s1"), "forgetting nothing is fine")
}

// A damaged record is reported, for its path (or for every path when its
// path cannot be read), and the next See of that path repairs it; the
// damage of another path's record is kept until that path is seen again.
func TestVersionsDamageIsReportedThenRepaired(t *testing.T) {
	s, dir := testLocks(t)
	ctx := t.Context()
	at := time.Unix(1_800_000_000, 0)
	require.NoError(t, s.See(ctx, "s1", at, []store.Version{{Path: "/p/a", Digest: "a", At: at}, {Path: "/p/b", Digest: "b", At: at}}))
	file := filepath.Join(dir, VersionsDirName, VersionsFileName("s1"))
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	// Both records edited by hand; a torn line of no path at the end.
	damaged := strings.Replace(strings.Replace(string(data), "|a|", "|A|", 1), "|b|", "|B|", 1) + "seen|12"
	require.NoError(t, os.WriteFile(file, []byte(damaged), 0o644))

	view, err := s.Seen(ctx, "s1", []store.Key{{Path: "/p/a"}, {Path: "/p/b"}})
	require.NoError(t, err)
	assert.Empty(t, view.Versions)
	require.NotNil(t, view.DamagedFor("/p/a"))
	all, err := s.Damaged(ctx)
	require.NoError(t, err)
	assert.Len(t, all, 3, "doctor sees every damaged record")

	require.NoError(t, s.See(ctx, "s1", time.Time{}, []store.Version{{Path: "/p/a", Digest: "a2", At: at}}))
	view, err = s.Seen(ctx, "s1", []store.Key{{Path: "/p/a"}, {Path: "/p/b"}})
	require.NoError(t, err)
	require.Len(t, view.Versions, 1)
	assert.Equal(t, "a2", view.Versions[0].Digest, "repaired by the next read")
	require.Len(t, view.Damaged, 1, "the other path's damage stays until it is read again")
	assert.Equal(t, "/p/b", view.Damaged[0].Path)
	assert.Nil(t, view.DamagedFor("/p/a"))

	changes := filepath.Join(dir, VersionsDirName, ChangesFileName("/p/a"))
	require.NoError(t, os.WriteFile(changes, []byte("edit|torn"), 0o644))
	_, ds, err := s.Changed(ctx, []store.Key{{Path: "/p/a"}})
	require.NoError(t, err)
	require.Len(t, ds, 1)
	assert.Equal(t, "/p/a", ds[0].Path)
	require.NoError(t, s.Change(ctx, []store.Change{{Path: "/p/a", Session: "s2", At: at, Digest: "x"}}))
	cs, ds, err := s.Changed(ctx, []store.Key{{Path: "/p/a"}})
	require.NoError(t, err)
	assert.Empty(t, ds, "repaired by the next change")
	assert.Len(t, cs, 1)
}

// Writers of one session's versions file never lose each other's
// records: each read-modify-write runs under the file's exclusive flock,
// whatever descriptor it comes from.
func TestVersionsConcurrentSeesKeepEveryPath(t *testing.T) {
	s, _ := testLocks(t)
	ctx := t.Context()
	var wg sync.WaitGroup
	for i := range 32 {
		wg.Go(func() {
			p := fmt.Sprintf("/p/f%02d", i)
			assert.NoError(t, s.See(ctx, "s1", time.Now(), []store.Version{{Path: p, Digest: "d", At: time.Now()}}))
			assert.NoError(t, s.Change(ctx, []store.Change{{Path: "/p/shared", Session: fmt.Sprint(i), At: time.Now(), Digest: "d"}}))
		})
	}
	wg.Wait()
	var keys []store.Key
	for i := range 32 {
		keys = append(keys, store.Key{Path: fmt.Sprintf("/p/f%02d", i)})
	}
	view, err := s.Seen(ctx, "s1", keys)
	require.NoError(t, err)
	assert.Len(t, view.Versions, 32)
	cs, ds, err := s.Changed(ctx, []store.Key{{Path: "/p/shared"}})
	require.NoError(t, err)
	assert.Empty(t, ds)
	assert.Len(t, cs, 1, "one edit record, the last")
}

// A versions file that names a path twice (agentlock never writes one so,
// a person's edit may) keeps the last line of it, and the order of the
// last lines.
func TestVersionsFileKeepsTheLastLineOfAPath(t *testing.T) {
	line := func(path, digest string) string {
		b, err := store.EncodeVersion(store.Version{Path: path, Digest: digest, At: time.Unix(1_800_000_000, 0)})
		require.NoError(t, err)
		return string(b) + "\n"
	}
	data := versionsHeader + "\n" + line("/p/a", "a1") + line("/p/b", "b1") + line("/p/c", "c1") + line("/p/a", "a2") + line("/p/b", "b2")
	f := parseSessionFile("ref", []byte(data))
	require.Empty(t, f.damaged)
	var got []string
	for _, v := range f.versions {
		got = append(got, v.Path+"="+v.Digest)
	}
	assert.Equal(t, []string{"/p/c=c1", "/p/a=a2", "/p/b=b2"}, got)
}
