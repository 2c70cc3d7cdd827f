package dashboard

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/internal/testkit/syncbuf"
)

func TestPageURL(t *testing.T) {
	assert.Equal(t, "http://127.0.0.1:7420/", PageURL("127.0.0.1:7420", ""))
	assert.Equal(t, "http://localhost:7420/?token=a+b%26c", PageURL("0.0.0.0:7420", "a b&c"))
	assert.Equal(t, "http://localhost:7420/", PageURL("[::]:7420", ""))
	assert.Equal(t, "http://[::1]:7420/", PageURL("[::1]:7420", ""))
}

func TestListenSaysThePortIsTaken(t *testing.T) {
	ln, err := Listen("127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	_, err = Listen(ln.Addr().String())
	assert.EqualError(t, err, "cannot serve on "+ln.Addr().String()+": the port is taken by another program (another agentlock serve?); choose another with --addr host:port")
	_, err = Listen("127.0.0.1:notaport")
	assert.ErrorContains(t, err, "cannot serve on 127.0.0.1:notaport: ")
}

func TestListenAndServeSaysWhereAndWhenItStops(t *testing.T) {
	f := newFixture(t, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	var log syncbuf.Buffer
	done := make(chan error, 1)
	go func() { done <- f.srv.ListenAndServe(ctx, "127.0.0.1:0", "t0k", false, &log) }()
	require.Eventually(t, func() bool { return strings.Contains(log.String(), "(Ctrl-C stops it)") }, 5*time.Second, 10*time.Millisecond)
	assert.Regexp(t, `^agentlock: serving the dashboard of `+regexp.QuoteMeta(f.root)+` at http://127\.0\.0\.1:\d+/\?token=t0k \(Ctrl-C stops it\)\n$`, log.String())
	cancel()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(5 * time.Second):
		t.Fatal("the server did not stop when its context was done")
	}
	assert.True(t, strings.HasSuffix(log.String(), "agentlock: dashboard stopped\n"), log.String())
}
