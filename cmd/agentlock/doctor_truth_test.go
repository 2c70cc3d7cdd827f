package main_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"
)

// readOnlyDir makes dir refuse new files for this process's user, root
// included: mode 0500, and for root the immutable attribute (chattr +i),
// which root's permission bypass does not cross. Both are undone at the
// end of the test.
func readOnlyDir(t *testing.T, dir string) {
	t.Helper()
	require.NoError(t, os.Chmod(dir, 0o500))
	t.Cleanup(func() { _ = os.Chmod(dir, 0o700) })
	if os.Geteuid() != 0 {
		return
	}
	out, err := exec.Command("chattr", "+i", dir).CombinedOutput()
	require.NoError(t, err, "as root, a read-only folder needs chattr +i (e2fsprogs) on a file system that has the attribute: %s", out)
	t.Cleanup(func() { _ = exec.Command("chattr", "-i", dir).Run() })
	require.Error(t, os.WriteFile(filepath.Join(dir, "probe"), nil, 0o600), "the folder still takes new files")
}

// TestDoctorUnwritableLockFolder: a lock folder the user cannot write makes
// every acquire fail; doctor must fail too, naming the folder, instead of
// passing every check.
func TestDoctorUnwritableLockFolder(t *testing.T) {
	p := newProject(t)
	requireExit(t, 0, p.run("init"))
	requireExit(t, 0, p.run("doctor"))
	locks := filepath.Join(p.dir, ".agent-registry", "locks")
	readOnlyDir(t, locks)

	acquire := p.run("acquire", "src/a.go", "--session", "s1")
	require.NotEqual(t, 0, acquire.Code, "acquire in a read-only lock folder: %s", acquire)

	r := p.run("doctor")
	requireExit(t, 1, r)
	require.Regexp(t, `(?m)^problem +lockdir-writable: the lock folder `+regexp.QuoteMeta(locks)+` is not writable`, r.Stdout)
	require.Regexp(t, `(?m)^ok +registry-writable: `, r.Stdout)
	entries, err := os.ReadDir(filepath.Dir(locks))
	require.NoError(t, err)
	for _, e := range entries {
		require.NotContains(t, e.Name(), "doctor-probe", "doctor left its probe file")
	}
}
