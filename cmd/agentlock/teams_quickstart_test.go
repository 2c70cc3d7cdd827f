package main_test

// docs/teams.md's quick start ("Try it on one machine"), run as written:
// its server, its build of agentlock-etcd, its init and its doctor.

import (
	"context"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/internal/testkit/proctest"
)

// quickStart is the commands of docs/teams.md's quick start, one per line,
// as a reader copies them.
type quickStart struct {
	docker, server, build, init, doctor string
	// builds are the build lines: agentlock-etcd, and agentlock-mcp with
	// the same tag (build is the first).
	builds []string
}

// readQuickStart finds the quick start's commands in docs/teams.md: the
// shell blocks of its "Try it on one machine" section.
func readQuickStart(t *testing.T) quickStart {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "docs", "teams.md"))
	require.NoError(t, err)
	_, section, ok := strings.Cut(string(data), "## Try it on one machine\n")
	require.True(t, ok, "docs/teams.md has no quick start section")
	section, _, _ = strings.Cut(section, "\n## ")
	var qs quickStart
	for _, block := range regexp.MustCompile("(?s)```sh\n(.*?)```").FindAllStringSubmatch(section, -1) {
		for _, line := range strings.Split(strings.TrimSpace(block[1]), "\n") {
			switch {
			case strings.HasPrefix(line, "docker run "):
				qs.docker = line
			case strings.HasPrefix(line, "go run -tags etcd ./bench/etcdserver"):
				qs.server = line
			case strings.Contains(line, "go build -tags etcd"):
				qs.builds = append(qs.builds, line)
				qs.build = qs.builds[0]
			case strings.HasPrefix(line, "agentlock init --store "):
				qs.init = line
			case strings.HasPrefix(line, "agentlock doctor"):
				qs.doctor = line
			default:
				t.Fatalf("docs/teams.md's quick start has a command this test does not know: %q", line)
			}
		}
	}
	for name, line := range map[string]string{"docker": qs.docker, "server": qs.server, "build": qs.build, "init": qs.init, "doctor": qs.doctor} {
		require.NotEmpty(t, line, "docs/teams.md's quick start lost its %s command", name)
	}
	return qs
}

// field returns the word after flag in a command line.
func field(t *testing.T, line, flag string) string {
	t.Helper()
	m := regexp.MustCompile(regexp.QuoteMeta(flag) + `[ =](\S+)`).FindStringSubmatch(line)
	require.NotNil(t, m, "%q has no %s", line, flag)
	return m[1]
}

// The two servers the quick start offers serve the URL its init names:
// docker's published port and etcdserver's -port and -prefix.
func TestTeamsQuickStartServersFitItsInit(t *testing.T) {
	qs := readQuickStart(t)
	store, err := url.Parse(field(t, qs.init, "--store"))
	require.NoError(t, err)
	require.Equal(t, "etcd", store.Scheme)
	require.Equal(t, "127.0.0.1", store.Hostname(), "a local etcd")

	published := field(t, qs.docker, "-p")
	assert.Equal(t, store.Port()+":2379", published, "docker publishes the port init names")
	assert.Equal(t, "http://127.0.0.1:2379", field(t, qs.docker, "--advertise-client-urls"))

	assert.Equal(t, store.Port(), field(t, qs.server, "-port"), "etcdserver serves the port init names")
	assert.Equal(t, strings.TrimPrefix(store.Path, "/"), field(t, qs.server, "-prefix"), "etcdserver prints the prefix init names")
}

// The quick start as written, in a checkout with an origin remote: the
// etcdserver line serves (port 2379 must be free: when it is not, the test
// says so and skips, or fails under CI=true), the build line installs
// agentlock-etcd in $(go env GOPATH)/bin — here a GOPATH of the test's own —,
// init sets the project up on the store and doctor passes, reaching it.
func TestTeamsQuickStartAsWritten(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the etcd server and agentlock-etcd")
	}
	qs := readQuickStart(t)
	goBin := proctest.Need(t, "go", "the quick start needs the go command")
	repo, err := filepath.Abs(filepath.Join("..", ".."))
	require.NoError(t, err)
	root := realTempDir(t)
	gopath := filepath.Join(root, "gopath")
	env := append(goEnv(t, goBin, root),
		"GOPATH="+gopath,
		"PATH="+strings.Join([]string{filepath.Join(gopath, "bin"), filepath.Dir(harness(t).Bin), filepath.Dir(goBin), "/usr/bin", "/bin"}, string(os.PathListSeparator)))
	sh := func(dir, line string) proctest.Cmd {
		return proctest.Cmd{Args: []string{"-c", line}, Env: env, Dir: dir, Limit: 10 * time.Minute}
	}

	// The server runs until the test ends (its standard input, which would
	// stop it, stays open); its URL goes to stderr, which can be watched.
	// It prints the URL, or why it could not serve — after go run's own
	// lines when the module cache lacks what the server needs (a new
	// machine's: "go: downloading ..."), so the first line is no answer.
	server := proctest.Start(t, "/bin/sh", sh(repo, "tail -f /dev/null | {\n"+qs.server+"\n} 1>&2"))
	url := regexp.MustCompile(`etcd://\S+`)
	for deadline := time.Now().Add(8 * time.Minute); !url.MatchString(server.Stderr()); time.Sleep(50 * time.Millisecond) {
		if strings.Contains(server.Stderr(), "address already in use") {
			proctest.Unavailable(t, "TEAMS QUICK START SKIPPED: port 2379 is taken here: %s", server.Stderr())
		}
		require.False(t, server.Exited(), "the quick start's server exited without printing its URL: %s", server.Stderr())
		require.True(t, time.Now().Before(deadline), "the quick start's server printed no URL: %s", server.Stderr())
	}
	printed := url.FindString(server.Stderr())
	require.Equal(t, field(t, qs.init, "--store"), printed, "the server prints the URL init names: %s", server.Stderr())

	for _, build := range qs.builds {
		requireExit(t, 0, proctest.Run(t, "/bin/sh", sh(repo, build)))
	}
	require.FileExists(t, filepath.Join(gopath, "bin", "agentlock-etcd"))
	// agentlock mcp, which doctor starts, runs the one beside agentlock-etcd.
	require.FileExists(t, filepath.Join(gopath, "bin", "agentlock-mcp"))

	project := filepath.Join(root, "project")
	for _, args := range [][]string{{"init", "-q", project}, {"-C", project, "remote", "add", "origin", "https://github.com/acme/quickstart.git"}} {
		requireExit(t, 0, proctest.Run(t, proctest.Need(t, "git", "the quick start's project is a git checkout"), proctest.Cmd{Args: args, Env: env, Dir: root}))
	}
	r := proctest.Run(t, "/bin/sh", sh(project, qs.init))
	requireExit(t, 0, r)
	assert.Contains(t, r.Stdout, ".agent-registry/store: the project's store: "+printed)
	r = proctest.Run(t, "/bin/sh", sh(project, qs.doctor))
	requireExit(t, 0, r)
	assert.Regexp(t, `(?m)^ok +store-reachable: `, r.Stdout)
	assert.Regexp(t, `(?m)^ok +store-registry: `, r.Stdout)
}

// goEnv is the environment of a go command that builds from the
// developer's caches and module proxy, with a home of root's: Go's defaults
// for everything else (proctest.GoEnv: no GOFLAGS or go env file of the
// developer's). Not offline: the etcd build needs modules that go test
// ./... never does, so a new machine's module cache lacks them, and a
// reader of the quick start downloads them too.
func goEnv(t *testing.T, goBin, root string) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	settings, err := proctest.GoEnv(ctx, goBin)
	require.NoError(t, err)
	home := filepath.Join(root, "home")
	require.NoError(t, os.MkdirAll(home, 0o700))
	return proctest.Env(home, root, settings...)
}
