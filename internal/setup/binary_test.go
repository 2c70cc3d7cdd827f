package setup_test

import (
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/internal/setup"
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
// npm/pack.mjs names it (in the scope @agentlock, a folder of node_modules).
func npmPlatform() string {
	cpu := map[string]string{"amd64": "x64", "arm64": "arm64"}[runtime.GOARCH]
	return filepath.Join("@agentlock", "agentlock-"+runtime.GOOS+"-"+cpu)
}

// npmLauncherInstall lays out a global npm install of @agentlock/agentlock
// in prefix whose install script did not run: the package's sh launcher
// (npm/agentlock/bin/agentlock) as lib/node_modules/@agentlock/agentlock/bin/agentlock,
// linked from prefix/bin, with no platform package. It returns the
// package's folder and prefix/bin.
func npmLauncherInstall(t *testing.T, prefix string) (pkg, bin string) {
	t.Helper()
	launcher, err := os.ReadFile("../../npm/agentlock/bin/agentlock")
	require.NoError(t, err)
	pkg = filepath.Join(prefix, "lib", "node_modules", "@agentlock", "agentlock")
	require.NoError(t, os.MkdirAll(filepath.Join(pkg, "bin"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(pkg, "bin", "agentlock"), launcher, 0o755))
	bin = filepath.Join(prefix, "bin")
	require.NoError(t, os.MkdirAll(bin, 0o755))
	require.NoError(t, os.Symlink("../lib/node_modules/@agentlock/agentlock/bin/agentlock", filepath.Join(bin, "agentlock")))
	return pkg, bin
}

// A global npm install whose install script did not run leaves the sh
// launcher on PATH: CheckBinary follows it to the native binary it runs,
// as the launcher finds it (beside the package, or nested under it).
func TestCheckBinaryFollowsTheNpmLauncher(t *testing.T) {
	for _, layout := range []string{"beside", "nested"} {
		t.Run(layout, func(t *testing.T) {
			prefix := t.TempDir()
			pkg, bin := npmLauncherInstall(t, prefix)
			native := filepath.Join(prefix, "lib", "node_modules", npmPlatform(), "bin", "agentlock")
			if layout == "nested" {
				native = filepath.Join(pkg, "node_modules", npmPlatform(), "bin", "agentlock")
			}
			copyExe(t, native)

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

// The bare npm name agentlock is another publisher's package: a binary in
// an unscoped node_modules/agentlock-<os>-<cpu> is not agentlock's, and
// the launcher is not followed there.
func TestCheckBinaryIgnoresUnscopedNpmPackages(t *testing.T) {
	prefix := t.TempDir()
	pkg, bin := npmLauncherInstall(t, prefix)
	unscoped := filepath.Base(npmPlatform())
	for _, native := range []string{
		filepath.Join(prefix, "lib", "node_modules", unscoped, "bin", "agentlock"),
		filepath.Join(pkg, "node_modules", unscoped, "bin", "agentlock"),
	} {
		copyExe(t, native)
	}
	self, err := os.Executable()
	require.NoError(t, err)
	b := setup.CheckBinary("agentlock", bin, self)
	assert.Equal(t, setup.BinaryOther, b.State, b.Detail())
	assert.Empty(t, b.Launches)
}

// No advice names the bare npm package agentlock, another publisher's.
func TestBinaryFixNamesTheScopedNpmPackage(t *testing.T) {
	bare := regexp.MustCompile(`(npm install -g|npx) agentlock\b`)
	for _, state := range []setup.BinaryState{setup.BinaryMissing, setup.BinaryOther, setup.BinaryTemporary} {
		fix := setup.Binary{State: state, Name: "agentlock"}.Fix()
		assert.NotRegexp(t, bare, fix)
		if state != setup.BinaryOther {
			assert.Regexp(t, `npm install -g @agentlock/agentlock[ ,]`, fix)
		}
	}
}

// npx puts its cached copy on PATH only while it runs: the hooks, run
// later, will not find it.
func TestCheckBinaryTellsNpxsTemporaryCopy(t *testing.T) {
	cache := filepath.Join(t.TempDir(), "_npx", "0123abcd", "node_modules")
	native := filepath.Join(cache, "@agentlock", "agentlock", "bin", "agentlock")
	copyExe(t, native)
	bin := filepath.Join(cache, ".bin")
	require.NoError(t, os.MkdirAll(bin, 0o755))
	require.NoError(t, os.Symlink("../@agentlock/agentlock/bin/agentlock", filepath.Join(bin, "agentlock")))
	b := setup.CheckBinary("agentlock", bin+string(os.PathListSeparator)+"/usr/bin", native)
	assert.Equal(t, setup.BinaryTemporary, b.State)
	assert.Contains(t, b.Detail(), "npx's temporary copy")
	assert.Contains(t, b.Fix(), "npm install -g @agentlock/agentlock (")
}

// Problem is the one line init prints: nothing for this build.
func TestBinaryProblem(t *testing.T) {
	assert.Empty(t, setup.Binary{State: setup.BinarySame, Name: "agentlock"}.Problem())
	missing := setup.Binary{State: setup.BinaryMissing, Name: "agentlock"}
	assert.Equal(t, missing.Detail()+"; "+missing.Fix(), missing.Problem())
	assert.NotEmpty(t, missing.Detail())
}
