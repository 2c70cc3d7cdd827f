package report

import (
	"errors"
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/agentlock/agentlock/core"
)

func TestExitCodeClassifiesEveryFrontEndsErrors(t *testing.T) {
	for _, c := range []struct {
		err    error
		code   int
		status int
	}{
		{nil, ExitOK, http.StatusOK},
		{fmt.Errorf("acquire: %w", core.ErrLocked), ExitRefused, http.StatusConflict},
		{fmt.Errorf("x: %w", core.ErrNoSession), ExitRefused, http.StatusConflict},
		{fmt.Errorf("x: %w", core.ErrInvalidSession), ExitUsage, http.StatusBadRequest},
		{Usagef(0, "bad body"), ExitUsage, http.StatusBadRequest},
		{Usagef(http.StatusMisdirectedRequest, "not loopback"), ExitUsage, http.StatusMisdirectedRequest},
		{Refusedf(http.StatusForbidden, "read-only"), ExitRefused, http.StatusForbidden},
		{fmt.Errorf("wrapped: %w", Refusedf(http.StatusNotFound, "no file")), ExitRefused, http.StatusNotFound},
		{errors.New("disk on fire"), ExitEnv, http.StatusInternalServerError},
		{fmt.Errorf("x: %w", core.ErrCorrupt), ExitEnv, http.StatusInternalServerError},
		{UsageErrorf("--wait %s: must not be negative", "-1s"), ExitUsage, http.StatusBadRequest},
		{LineUsageErrorf("you are session %s", "a"), ExitUsage, http.StatusBadRequest},
		{&UsageError{Err: fmt.Errorf("flag: %w", core.ErrLocked)}, ExitUsage, http.StatusBadRequest},
		{fmt.Errorf("check: %w", ErrReported), ExitRefused, http.StatusConflict},
		{ErrDenied, ExitDeny, http.StatusBadRequest},
	} {
		assert.Equal(t, c.code, ExitCode(c.err), "%v", c.err)
		assert.Equal(t, c.status, HTTPStatus(c.err), "%v", c.err)
	}
	assert.Equal(t, Error{Kind: "error", Error: "read-only", ExitCode: ExitRefused}, ErrorOf(Refusedf(http.StatusForbidden, "read-only")))
}

// precise is an environment error that names a client status: the class
// wins, a server failure is never answered as the client's fault.
type precise struct{}

func (precise) Error() string   { return "boom" }
func (precise) HTTPStatus() int { return http.StatusNotFound }

func TestHTTPStatusKeepsTheClassOfAnEnvironmentError(t *testing.T) {
	assert.Equal(t, http.StatusInternalServerError, HTTPStatus(precise{}))
}

// A usage error keeps its message and what it wraps; Line says whether the
// usage goes with it.
func TestUsageErrorWrapsAndSaysItsForm(t *testing.T) {
	var ue *UsageError
	err := fmt.Errorf("x: %w", UsageErrorf("bad %q", "v"))
	assert.True(t, errors.As(err, &ue))
	assert.False(t, ue.Line)
	assert.Equal(t, `x: bad "v"`, err.Error())
	assert.True(t, errors.As(LineUsageErrorf("run %s", "y"), &ue))
	assert.True(t, ue.Line)
	assert.Equal(t, "run y", ue.Error())
	inner := errors.New("inner")
	assert.ErrorIs(t, &UsageError{Err: inner}, inner)
}

func TestReportedAndExplain(t *testing.T) {
	assert.True(t, Reported(fmt.Errorf("x: %w", ErrReported)))
	assert.True(t, Reported(ErrDenied))
	assert.False(t, Reported(ErrRefused))
	assert.False(t, Reported(errors.New("x")))
	assert.Equal(t, "disk", Explain(errors.New("disk")))
	assert.Equal(t, "f: corrupt lock file; inspect it, then empty it with 'agentlock release --force'",
		Explain(fmt.Errorf("f: %w", core.ErrCorrupt)))
}
