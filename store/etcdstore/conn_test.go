//go:build etcd

package etcdstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// documented is how docs/teams.md says a cluster that did not answer is
// reported.
const documented = "the cluster did not answer (unreachable, or no quorum)"

// Every error of a cluster that did not answer — in whatever shape the
// client gives it — is reported the documented way; the cluster's other
// answers (a refusal, a bad request) keep their own words. The first three
// are the raw errors seen during elections (issue 37), which reached the
// user as they were.
func TestUnansweredClassifiesEveryShape(t *testing.T) {
	c := NewConn(Config{Endpoints: []string{"127.0.0.1:1", "127.0.0.1:2"}})
	for _, tc := range []struct {
		name string
		err  error
		want bool
	}{
		// The raw errors quoted by the issue.
		{"leader changed (an etcd server error: Code() but no GRPCStatus())", rpctypes.ErrLeaderChanged, true},
		{"a server-side deadline, as status Unknown", status.Error(codes.Unknown, "context deadline exceeded"), true},
		{"a lease renewal's stream cut short", io.EOF, true},
		// The other etcd server errors of a cluster between leaders.
		{"no leader", rpctypes.ErrNoLeader, true},
		{"not leader", rpctypes.ErrNotLeader, true},
		{"request timed out", rpctypes.ErrTimeout, true},
		{"timed out after a leader failure", rpctypes.ErrTimeoutDueToLeaderFail, true},
		{"timed out, connection lost", rpctypes.ErrTimeoutDueToConnectionLost, true},
		{"timed out waiting for the applied index", rpctypes.ErrTimeoutWaitAppliedIndex, true},
		{"server stopped", rpctypes.ErrStopped, true},
		{"unhealthy cluster", rpctypes.ErrUnhealthy, true},
		{"the server's own deadline error", rpctypes.ErrGRPCDeadlineExceeded, true},
		{"the same, as the client converts it", rpctypes.Error(rpctypes.ErrGRPCDeadlineExceeded), true},
		{"leader changed, as the wire carries it", rpctypes.ErrGRPCLeaderChanged, true},
		{"a context canceled, as status Unknown", status.Error(codes.Unknown, "context canceled"), true},
		{"a member killed mid-request", status.Error(codes.Unknown, "raft: stopped"), true},
		{"a proposal dropped by a leadership transfer", status.Error(codes.Unknown, "raft proposal dropped"), true},
		{"a leader transfer that took too long", status.Error(codes.Unknown, "etcdserver: request timed out, leader transfer took too long"), true},
		{"status unavailable (a member gone)", status.Error(codes.Unavailable, "connection refused"), true},
		{"status deadline", status.Error(codes.DeadlineExceeded, "context deadline exceeded"), true},
		{"the request's deadline", context.DeadlineExceeded, true},
		{"the request's cancellation", context.Canceled, true},
		{"a stream cut mid-message", io.ErrUnexpectedEOF, true},
		{"wrapped", fmt.Errorf("recv: %w", rpctypes.ErrLeaderChanged), true},
		{"joined (a write, then its re-read)", errors.Join(rpctypes.ErrLeaderChanged, io.EOF), true},
		// Answers: the cluster said something.
		{"permission denied", rpctypes.ErrPermissionDenied, false},
		{"authentication failed", rpctypes.ErrAuthFailed, false},
		{"compacted", rpctypes.ErrCompacted, false},
		{"too many operations", rpctypes.ErrTooManyOps, false},
		{"lease not found", rpctypes.ErrLeaseNotFound, false},
		{"no space", rpctypes.ErrNoSpace, false},
		{"status unknown, another message", status.Error(codes.Unknown, "something else"), false},
		{"status invalid argument", status.Error(codes.InvalidArgument, "bad"), false},
		{"any other error", errors.New("boom"), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, Unanswered(tc.err))
			err := c.wrap("read locks", tc.err)
			assert.Equal(t, tc.want, errors.Is(err, ErrUnavailable), "%v", err)
			if tc.want {
				assert.Contains(t, err.Error(), "etcd 127.0.0.1:1,127.0.0.1:2: read locks: "+documented)
			} else {
				assert.NotContains(t, err.Error(), documented)
				assert.ErrorIs(t, err, tc.err, "the answer is kept")
			}
		})
	}
	assert.False(t, Unanswered(nil))
	assert.NoError(t, c.wrap("read locks", nil))
}

// An idempotent request that met an election is made once more, within the
// caller's deadline; one the cluster answered, one that used up its bound
// and one whose caller gave up are not.
func TestRetriedRunsAnIdempotentRequestOnceMore(t *testing.T) {
	c := NewConn(Config{Endpoints: []string{"127.0.0.1:1"}, DialTimeout: time.Minute})
	answers := func(errs ...error) (func(context.Context) (int, error), *int) {
		calls := 0
		return func(context.Context) (int, error) {
			calls++
			if err := errs[calls-1]; err != nil {
				return 0, err
			}
			return calls, nil
		}, &calls
	}

	f, calls := answers(rpctypes.ErrLeaderChanged, nil)
	v, err := retried(t.Context(), c, f)
	require.NoError(t, err, "the read after the election succeeds")
	assert.Equal(t, 2, v)
	assert.Equal(t, 2, *calls)

	f, calls = answers(io.EOF, rpctypes.ErrNoLeader)
	_, err = retried(t.Context(), c, f)
	assert.ErrorIs(t, err, rpctypes.ErrNoLeader, "the second failure is the answer")
	assert.Equal(t, 2, *calls, "once more, not more")

	f, calls = answers(rpctypes.ErrPermissionDenied)
	_, err = retried(t.Context(), c, f)
	assert.ErrorIs(t, err, rpctypes.ErrPermissionDenied)
	assert.Equal(t, 1, *calls, "an answer is not asked again")

	// The request's bound (here the caller's deadline) used up: nothing
	// is left for a retry.
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Millisecond)
	defer cancel()
	calls = new(int)
	_, err = retried(ctx, c, func(ctx context.Context) (int, error) {
		*calls++
		<-ctx.Done()
		return 0, status.Error(codes.DeadlineExceeded, ctx.Err().Error())
	})
	assert.True(t, Unanswered(err))
	assert.Equal(t, 1, *calls, "no retry past the caller's deadline")

	// The caller gave up while the cluster was between leaders.
	ctx, cancelCause := context.WithCancelCause(t.Context())
	calls = new(int)
	_, err = retried(ctx, c, func(context.Context) (int, error) {
		*calls++
		cancelCause(errors.New("the client went away"))
		return 0, rpctypes.ErrLeaderChanged
	})
	assert.ErrorIs(t, err, rpctypes.ErrLeaderChanged)
	assert.Equal(t, 1, *calls, "no retry for a caller that gave up")
}
