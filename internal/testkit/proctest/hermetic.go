package proctest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// SystemPath ends every child's PATH: the operating system's programs (sh,
// sed, mkfifo, …), never a folder of the developer's own, where another
// agentlock, an agentlock-etcd or an agent CLI may be installed.
const SystemPath = "/usr/bin:/bin"

// Tools are the programs that tests run by name and that a developer may
// keep outside SystemPath: the go command in its GOROOT, a python3 of
// pyenv, node of nvm, git or strace of Homebrew, a browser. Isolate links
// the ones it finds into a folder of their own on the isolated PATH.
func Tools() []string {
	return []string{"go", "git", "python3", "node", "npm", "bash", "strace", "curl", "unshare", "setpriv", "chattr",
		"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"}
}

// IsolatePath sets this process's PATH to dirs (the folders of the
// programs under test), then tools (a folder made here holding a link to
// each of programs found on the current PATH, outside SystemPath), then
// SystemPath, and returns it. Nothing else of the developer's PATH is
// left, for the test process (exec.LookPath, testscript's conditions) and
// for every child, whose environment copies it (Env, testscript): a test
// finds the same programs on every machine.
func IsolatePath(tools string, programs []string, dirs ...string) (string, error) {
	if err := os.MkdirAll(tools, 0o755); err != nil {
		return "", fmt.Errorf("isolate PATH: %w", err)
	}
	system := filepath.SplitList(SystemPath)
	for _, name := range programs {
		found, err := exec.LookPath(name)
		if err != nil {
			continue // the tests that need it skip, or fail in CI (Need)
		}
		if found, err = filepath.Abs(found); err != nil {
			return "", fmt.Errorf("isolate PATH: %w", err)
		}
		if slices.Contains(system, filepath.Dir(found)) {
			continue // found there anyway
		}
		if err := os.Symlink(found, filepath.Join(tools, name)); err != nil {
			return "", fmt.Errorf("isolate PATH: link %s: %w", name, err)
		}
	}
	path := strings.Join(append(append([]string{}, dirs...), tools, SystemPath), string(os.PathListSeparator))
	if err := os.Setenv("PATH", path); err != nil {
		return "", fmt.Errorf("isolate PATH: %w", err)
	}
	return path, nil
}

// GitEnv is what makes git, wherever a test runs it, read neither the
// system's configuration nor the developer's (a global
// init.defaultBranch, color.ui=always or commit.gpgsign would change what
// the tests see), and write commits as a fixed author.
func GitEnv() []string {
	return []string{"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_AUTHOR_NAME=t",
		"GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t"}
}

// WithoutGit returns env without git's own variables (GIT_DIR,
// GIT_INDEX_FILE, GIT_CONFIG_PARAMETERS, …): set when the tests run from a
// git hook or under git rebase --exec, they would point every git command
// of the tests at the developer's repository.
func WithoutGit(env []string) []string {
	return slices.DeleteFunc(slices.Clone(env), func(kv string) bool { return strings.HasPrefix(kv, "GIT_") })
}

// IsolateGit makes every git command this process runs, in the tests or in
// the code under test, independent of the developer's: it removes git's
// variables from the environment (WithoutGit) and sets GitEnv.
func IsolateGit() error {
	for _, kv := range os.Environ() {
		if name, _, _ := strings.Cut(kv, "="); strings.HasPrefix(name, "GIT_") {
			if err := os.Unsetenv(name); err != nil {
				return fmt.Errorf("isolate git: %w", err)
			}
		}
	}
	for _, kv := range GitEnv() {
		name, value, _ := strings.Cut(kv, "=")
		if err := os.Setenv(name, value); err != nil {
			return fmt.Errorf("isolate git: %w", err)
		}
	}
	return nil
}

// Isolate makes this test process hermetic before its tests run, and
// returns a function that removes what it made: PATH becomes dirs, links
// to the Tools found, then SystemPath (IsolatePath), and git reads no
// configuration of the developer's (IsolateGit), and no child inherits a
// file descriptor this process inherited (KeepInheritedFiles). Call it from TestMain in
// every package whose tests start programs, run git or use the code that
// does; children then get the same (Env copies PATH and sets GitEnv).
func Isolate(dirs ...string) (func(), error) {
	tools, err := os.MkdirTemp("", "proctest-tools-")
	if err != nil {
		return nil, fmt.Errorf("isolate: %w", err)
	}
	cleanup := func() { os.RemoveAll(tools) }
	if _, err := IsolatePath(tools, Tools(), dirs...); err != nil {
		cleanup()
		return nil, err
	}
	if err := IsolateGit(); err != nil {
		cleanup()
		return nil, err
	}
	if err := KeepInheritedFiles(); err != nil {
		cleanup()
		return nil, err
	}
	return cleanup, nil
}

// Main is TestMain for a package whose tests need nothing but Isolate: it
// isolates the process, runs the tests and returns their exit code.
func Main(m interface{ Run() int }) int {
	cleanup, err := Isolate()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer cleanup()
	return m.Run()
}
