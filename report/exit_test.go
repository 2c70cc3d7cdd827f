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
