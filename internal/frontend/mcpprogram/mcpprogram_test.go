package mcpprogram

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/internal/frontend/cliconfig"
	"github.com/agentlock/agentlock/internal/testkit/clienv"
	"github.com/agentlock/agentlock/internal/testkit/proctest"
	"github.com/agentlock/agentlock/report"
)

// serveVar makes the test binary agentlock-mcp itself: list-tools starts
// it as the server it lists.
const serveVar = "MCPPROGRAM_TEST_SERVE"

func TestMain(m *testing.M) {
	if os.Getenv(serveVar) == "1" {
		os.Exit(Main(FromOS(testBuild)))
	}
	os.Exit(proctest.Main(m))
}

// testBuild is the build the tests' program reports.
var testBuild = report.Version{Version: "v1.2.3", Commit: "0123456789abcdef0123456789abcdef01234567", Date: "2026-12-01T00:00:00Z"}

// hermetic is clienv.Hermetic.
func hermetic(t *testing.T) string { return clienv.Hermetic(t) }

// options are the program's Options on buffers, for the command line args.
func options(dir string, args ...string) (Options, *bytes.Buffer, *bytes.Buffer) {
	var out, errOut bytes.Buffer
	return Options{Args: args, In: strings.NewReader(""), Out: &out, ErrOut: &errOut, Env: os.Environ(), Dir: dir,
		Now: time.Now, Build: testBuild}, &out, &errOut
}

// served runs the command line args with a server that only captures the
// configuration it would serve.
func served(t *testing.T, args ...string) (*cliconfig.Config, error) {
	t.Helper()
	opts, _, _ := options(hermetic(t), args...)
	var got *cliconfig.Config
	root, done := newRoot(opts, func(c *cliconfig.Config) error {
		got = c
		return nil
	})
	t.Cleanup(func() { assert.NoError(t, done()) })
	root.SetArgs(args)
	_, err := root.ExecuteC()
	return got, err
}

// agentlock mcp hands its command line over as it was given: the flags
// reach the server's configuration here. (Moved from cmd/agentlock's
// TestRunFMCP with the server.)
func TestServerConfigurationFromTheCommandLine(t *testing.T) {
	c, err := served(t, "mcp")
	require.NoError(t, err)
	require.NotNil(t, c)
	require.Empty(t, c.Identity.Flag, "every call resolves its own session")

	// --session and --timeout given to the server apply to every call:
	// they are the server's configuration, which every call's session
	// service starts from; --json does not need to (every tool call
	// prints the --json records).
	c, err = served(t, "mcp", "--session", "claude-1", "--timeout", "30", "--json")
	require.NoError(t, err)
	require.Equal(t, "claude-1", c.Identity.Flag)
	require.Equal(t, 30*time.Second, c.Settings.Timeout)
	c, err = served(t, "--session", "claude-1", "mcp")
	require.NoError(t, err)
	require.Equal(t, "claude-1", c.Identity.Flag, "a global flag before the command")
	c, err = served(t, "mcp", "--session-id=claude 2")
	require.NoError(t, err)
	require.Equal(t, "claude 2", c.Identity.Flag, "one argument, whatever it holds")

	c, err = served(t, "mcp", "serve")
	require.Nil(t, c)
	require.Equal(t, report.ExitUsage, report.ExitCode(err))
	require.ErrorContains(t, err, `unknown command "serve" for "agentlock-mcp mcp"`)
}

// Main serves the protocol on the process's streams, and ends when the
// client closes its input.
func TestMainServesOnItsStreams(t *testing.T) {
	dir := hermetic(t)
	ctx, cancel := context.WithTimeout(context.Background(), proctest.Timeout)
	defer cancel()
	serverIn, clientOut := io.Pipe()
	clientIn, serverOut := io.Pipe()
	opts, _, errOut := options(dir, "mcp")
	opts.In, opts.Out = serverIn, serverOut
	code := make(chan int, 1)
	go func() {
		code <- Main(opts)
		serverOut.Close()
	}()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).
		Connect(ctx, &mcp.IOTransport{Reader: clientIn, Writer: clientOut}, nil)
	require.NoError(t, err)
	require.Equal(t, "agentlock", cs.InitializeResult().ServerInfo.Name)
	require.Equal(t, testBuild.Version, cs.InitializeResult().ServerInfo.Version)
	res, err := cs.ListTools(ctx, nil)
	require.NoError(t, err)
	require.Len(t, res.Tools, 11)
	require.NoError(t, cs.Close())
	select {
	case c := <-code:
		require.Equal(t, 0, c, "stderr: %s", errOut)
	case <-ctx.Done():
		t.Fatal("the server did not end with its client")
	}
}

// version prints what agentlock version prints for the same build.
func TestVersion(t *testing.T) {
	opts, out, errOut := options(hermetic(t), "version", "--json")
	require.Equal(t, 0, Main(opts), errOut.String())
	var got report.Version
	require.NoError(t, json.Unmarshal(out.Bytes(), &got))
	require.Equal(t, testBuild.Version, got.Version)
	require.Equal(t, testBuild.Commit, got.Commit)

	opts, out, _ = options(hermetic(t), "version")
	require.Equal(t, 0, Main(opts))
	require.Equal(t, testBuild.Line()+"\n", out.String())

	opts, _, errOut = options(hermetic(t), "acquire", "x")
	require.Equal(t, report.ExitUsage, Main(opts), "agentlock-mcp runs agentlock mcp, not agentlock's other commands")
	require.Contains(t, errOut.String(), `unknown command "acquire"`)
}

// list-tools, doctor's check, starts a real server process and lists its
// tools; a program that is no MCP server fails it.
func TestListTools(t *testing.T) {
	dir := hermetic(t)
	opts, out, errOut := options(dir, "list-tools", os.Args[0], "mcp")
	opts.Env = append(proctest.Env(filepath.Join(dir, "..", "home"), t.TempDir()), serveVar+"=1")
	require.Equal(t, 0, Main(opts), errOut.String())
	tools := strings.Fields(out.String())
	sort.Strings(tools)
	require.Equal(t, []string{"acquire", "check", "finish", "handoff", "heartbeat", "register", "release", "release_all",
		"status", "update", "whoami"}, tools)

	opts, out, errOut = options(dir, "list-tools", "/bin/sh", "-c", "echo not a server >&2")
	require.Equal(t, report.ExitEnv, Main(opts))
	require.Empty(t, out.String())
	require.Contains(t, errOut.String(), "not a server", "the server's standard error is the program's")
	require.Contains(t, errOut.String(), "initialize")
}

// agentlock serve, handed over, is served with the configuration of its
// command line, strictly (an invalid setting is a usage error, as in
// agentlock), and an address it must not listen on is refused before
// anything is resolved.
func TestServeConfigurationFromTheCommandLine(t *testing.T) {
	c, err := served(t, "serve", "--addr", "127.0.0.1:0", "--session", "claude-1", "--timeout", "30")
	require.NoError(t, err)
	require.NotNil(t, c)
	require.Equal(t, "claude-1", c.Identity.Flag)
	require.Equal(t, 30*time.Second, c.Settings.Timeout)

	c, err = served(t, "serve", "--timeout", "-5")
	require.Nil(t, c)
	require.Equal(t, report.ExitUsage, report.ExitCode(err))
	require.ErrorContains(t, err, "--timeout")

	c, err = served(t, "serve", "--addr", "0.0.0.0:7420")
	require.Nil(t, c, "nothing resolved for an address that is refused")
	require.Equal(t, report.ExitUsage, report.ExitCode(err))
	require.ErrorContains(t, err, "give --token too")

	c, err = served(t, "serve", "extra")
	require.Nil(t, c)
	require.Equal(t, report.ExitUsage, report.ExitCode(err))
}
