package main_test

import (
	"net"
	"net/http"
	"regexp"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/internal/proctest"
)

// A port already taken is a clear error naming the address, and the
// command to choose another.
func TestServePortTaken(t *testing.T) {
	p := newProject(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	r := p.run("serve", "--addr", ln.Addr().String())
	requireExit(t, 3, r)
	assert.Contains(t, r.Stderr, "cannot serve on "+ln.Addr().String()+": the port is taken")
	assert.Contains(t, r.Stderr, "--addr host:port")
}

// SIGINT and SIGTERM stop the server gracefully: open event streams end,
// the exit code is 0.
func TestServeStopsOnSignal(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for the server in real time")
	}
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		p := newProject(t)
		requireExit(t, 0, p.run("init"))
		serve := proctest.Start(t, harness(t).Bin, proctest.Cmd{Args: []string{"serve", "--addr", "127.0.0.1:0", "--read-only"}, Env: p.env, Dir: p.dir})
		serve.WaitStderr(t, "serving the dashboard", 10*time.Second)
		link := regexp.MustCompile(`http://127\.0\.0\.1:\d+/`).FindString(serve.Stderr())
		require.NotEmpty(t, link)
		client := &http.Client{Timeout: 10 * time.Second}
		stream, err := client.Get(link + "api/events") // an open event stream
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, stream.StatusCode)
		require.NoError(t, serve.Signal(sig))
		r := serve.Wait(t)
		stream.Body.Close()
		requireExit(t, 0, r)
		assert.Contains(t, r.Stderr, "dashboard stopped", "%s", sig)
	}
}
