package githook

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func install(t *testing.T, dir string) Change {
	t.Helper()
	c, err := PlanInstall(dir, "agentlock")
	require.NoError(t, err)
	require.NoError(t, Write(c))
	return c
}

func uninstall(t *testing.T, dir string) {
	t.Helper()
	c, err := PlanUninstall(dir)
	require.NoError(t, err)
	require.NoError(t, Write(c))
}

// No hook: agentlock's own, executable; uninstall deletes it.
func TestOwnHookInstalledAndRemoved(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "hooks")
	install(t, dir)
	info, err := os.Stat(filepath.Join(dir, Name))
	require.NoError(t, err)
	assert.NotZero(t, info.Mode()&0o100, "executable")
	again, err := PlanInstall(dir, "agentlock")
	require.NoError(t, err)
	assert.False(t, again.Changed(), "twice changes nothing")
	uninstall(t, dir)
	assert.NoFileExists(t, filepath.Join(dir, Name))
}

// A user's shell hook is chained, never overwritten, and given back byte
// for byte.
func TestUserHookChainedAndRestored(t *testing.T) {
	dir := t.TempDir()
	mine := "#!/usr/bin/env bash\nset -e\nmake lint\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, Name), []byte(mine), 0o750))
	install(t, dir)
	got, err := os.ReadFile(filepath.Join(dir, Name))
	require.NoError(t, err)
	assert.Equal(t, "#!/usr/bin/env bash\n"+block("agentlock")+"set -e\nmake lint\n", string(got))
	again, err := PlanInstall(dir, "agentlock")
	require.NoError(t, err)
	assert.False(t, again.Changed())
	uninstall(t, dir)
	got, err = os.ReadFile(filepath.Join(dir, Name))
	require.NoError(t, err)
	assert.Equal(t, mine, string(got))
}

// A hook in another language is refused with the line to add by hand.
func TestForeignHookRefused(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, Name), []byte("#!/usr/bin/env python3\nprint(1)\n"), 0o755))
	_, err := PlanInstall(dir, "agentlock")
	assert.ErrorIs(t, err, ErrForeignHook)
	assert.ErrorContains(t, err, "agentlock guard --staged")
}
