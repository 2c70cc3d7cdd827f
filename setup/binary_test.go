package setup_test

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/setup"
)

// copyExe copies the running test binary (a Go program with build
// information) to path, executable.
func copyExe(t *testing.T, path string) {
	t.Helper()
	self, err := os.Executable()
	require.NoError(t, err)
	data, err := os.ReadFile(self)
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, data, 0o755))
}

// npmPlatform is the npm platform package of this machine, as
// npm/pack.mjs names it.
func npmPlatform() string {
	cpu := map[string]string{"amd64": "x64", "arm64": "arm64"}[runtime.GOARCH]
	return "agentlock-" + runtime.GOOS + "-" + cpu
}

// A global npm install whose install script did not run leaves the sh
// launcher on PATH: CheckBinary follows it to the native binary it runs,
// as the launcher finds it (beside the package, or nested under it).
func TestCheckBinaryFollowsTheNpmLauncher(t *testing.T) {
	launcher, err := os.ReadFile("../npm/agentlock/bin/agentlock")
	require.NoError(t, err)
	for _, layout := range []string{"beside", "nested"} {
		t.Run(layout, func(t *testing.T) {
			prefix := t.TempDir()
			pkg := filepath.Join(prefix, "lib", "node_modules", "agentlock")
			native := filepath.Join(prefix, "lib", "node_modules", npmPlatform(), "bin", "agentlock")
			if layout == "nested" {
				native = filepath.Join(pkg, "node_modules", npmPlatform(), "bin", "agentlock")
			}
			copyExe(t, native)
			require.NoError(t, os.MkdirAll(filepath.Join(pkg, "bin"), 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(pkg, "bin", "agentlock"), launcher, 0o755))
			bin := filepath.Join(prefix, "bin")
			require.NoError(t, os.MkdirAll(bin, 0o755))
			require.NoError(t, os.Symlink("../lib/node_modules/agentlock/bin/agentlock", filepath.Join(bin, "agentlock")))

			b := setup.CheckBinary("agentlock", bin, native)
			assert.Equal(t, setup.BinarySame, b.State, b.Detail())
			real, err := filepath.EvalSymlinks(native)
			require.NoError(t, err)
			launches, err := filepath.EvalSymlinks(b.Launches)
			require.NoError(t, err)
			assert.Equal(t, real, launches)
			assert.Contains(t, b.Detail(), "npm's sh launcher of")

			// Another program as self: the launcher's binary is not it.
			other := filepath.Join(t.TempDir(), "agentlock")
			require.NoError(t, os.WriteFile(other, []byte("#!/bin/sh\n"), 0o755))
			assert.Equal(t, setup.BinaryOther, setup.CheckBinary("agentlock", bin, other).State)

			// The platform package gone (--omit=optional): not this one.
			require.NoError(t, os.RemoveAll(filepath.Dir(filepath.Dir(native))))
			b = setup.CheckBinary("agentlock", bin, real)
			assert.Equal(t, setup.BinaryOther, b.State, b.Detail())
			assert.Empty(t, b.Launches)
		})
	}
}

// npx puts its cached copy on PATH only while it runs: the hooks, run
// later, will not find it.
func TestCheckBinaryTellsNpxsTemporaryCopy(t *testing.T) {
	cache := filepath.Join(t.TempDir(), "_npx", "0123abcd", "node_modules")
	native := filepath.Join(cache, "agentlock", "bin", "agentlock")
	copyExe(t, native)
	bin := filepath.Join(cache, ".bin")
	require.NoError(t, os.MkdirAll(bin, 0o755))
	require.NoError(t, os.Symlink("../agentlock/bin/agentlock", filepath.Join(bin, "agentlock")))
	b := setup.CheckBinary("agentlock", bin+string(os.PathListSeparator)+"/usr/bin", native)
	assert.Equal(t, setup.BinaryTemporary, b.State)
	assert.Contains(t, b.Detail(), "npx's temporary copy")
	assert.Contains(t, b.Fix(), "npm install -g agentlock")
}
