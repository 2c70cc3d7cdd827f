package report

import (
	"errors"
	"fmt"

	"github.com/agentlock/agentlock/core"
)

// Exit codes: the contract agents script against (README.md,
// docs/schema). Every front end classifies its failures with ExitCode,
// the one classification: the command line's exit status (a hook's
// included), the exit_code of the --json error record, the dashboard's
// HTTP status (HTTPStatus) and the MCP server's results (a tool error
// unless ExitOK, or ExitRefused for a tool whose refusal is a result).
const (
	ExitOK      = 0 // done
	ExitRefused = 1 // held by another session, not the owner, no such lock or session
	ExitUsage   = 2 // missing or malformed arguments
	ExitEnv     = 3 // I/O or permission error, corrupt file, unsupported file system, anything unforeseen
	// ExitDeny is a hook's refusal of an edit (ErrDenied): the code every
	// harness reads as "block this tool call".
	ExitDeny = 2
	// ExitHookLine is a malformed hook command line (HookLineError): an
	// error every harness reports without blocking the tool call (never
	// ExitDeny).
	ExitHookLine = 1
)

// Marks of the classes that no error of package core names: an error
// matching ErrUsage is a usage error, one matching ErrRefused a refusal.
var (
	ErrUsage   = errors.New("usage error")
	ErrRefused = errors.New("refused")
	// ErrReported is a refusal that a command has already reported on its
	// output: only the exit code is left to give.
	ErrReported = fmt.Errorf("%w (reported)", ErrRefused)
	// ErrDenied is a hook's denial of an edit, already said to the
	// harness (ExitDeny).
	ErrDenied = errors.New("edit denied")
)

// Reported reports whether err was already told to the user (ErrReported,
// ErrDenied): a front end prints nothing more of it.
func Reported(err error) bool {
	return errors.Is(err, ErrReported) || errors.Is(err, ErrDenied)
}

// UsageError is a mistake in a command line (exit 2). A front end shows
// it with where the usage is, unless Line: a refusal said in one line
// that already names the command to run instead.
type UsageError struct {
	Err  error
	Line bool
}

func (e *UsageError) Error() string { return e.Err.Error() }

// Unwrap returns the mistake.
func (e *UsageError) Unwrap() error { return e.Err }

// Is makes the error match ErrUsage.
func (e *UsageError) Is(target error) bool { return target == ErrUsage }

// UsageErrorf returns a usage error shown with where the usage is.
func UsageErrorf(format string, args ...any) error {
	return &UsageError{Err: fmt.Errorf(format, args...)}
}

// LineUsageErrorf returns a usage error said in one line, without the
// usage, because it names the command to run instead.
func LineUsageErrorf(format string, args ...any) error {
	return &UsageError{Err: fmt.Errorf(format, args...), Line: true}
}

// HookLineError is a mistake in a hook's command line (a mistyped agent
// or event, an argument or a flag too many): agentlock's own problem, not
// a refusal. It exits ExitHookLine: exit 2, a usage error's, is what
// harnesses read as "deny this tool call", which would block every edit
// with a message about a command line the model never wrote.
type HookLineError struct {
	Err error
}

func (e *HookLineError) Error() string { return e.Err.Error() }

// Unwrap returns the mistake.
func (e *HookLineError) Unwrap() error { return e.Err }

// Explain adds to an error's message what a person can do about it.
func Explain(err error) string {
	msg := err.Error()
	if errors.Is(err, core.ErrCorrupt) {
		msg += "; inspect it, then empty it with 'agentlock release --force'"
	}
	return msg
}

// ExitCode classifies err: the one place where errors become exit codes.
// A usage error must be one (ErrUsage, an invalid session id or path): an
// error nobody foresaw is an environment error, never a usage error, so
// that an agent is not told to fix a command line that was right.
func ExitCode(err error) int {
	switch {
	case err == nil:
		return ExitOK
	case errors.Is(err, ErrDenied):
		return ExitDeny
	case errors.As(err, new(*HookLineError)):
		return ExitHookLine
	case errors.Is(err, ErrUsage), errors.Is(err, core.ErrInvalidSession), errors.Is(err, core.ErrInvalidPath):
		return ExitUsage
	case errors.Is(err, ErrRefused),
		errors.Is(err, core.ErrLocked), errors.Is(err, core.ErrNotOwner), errors.Is(err, core.ErrNoLock),
		errors.Is(err, core.ErrNoSession):
		return ExitRefused
	}
	return ExitEnv
}

// HTTPStatus is the HTTP status that answers err, derived from its class
// (ExitCode): 400 for a usage error (a hook's command line's too), 409 for
// a refusal, 500 for the rest.
// An error of the usage or refusal class may name a more precise client
// error (4xx) by a method HTTPStatus() int (Refusal: 403, 404, ...).
func HTTPStatus(err error) int {
	code := ExitCode(err)
	if errors.As(err, new(*HookLineError)) {
		code = ExitUsage
	}
	var precise interface{ HTTPStatus() int }
	if code != ExitEnv && errors.As(err, &precise) {
		if s := precise.HTTPStatus(); s >= 400 && s < 500 {
			return s
		}
	}
	switch code {
	case ExitOK:
		return statusOK
	case ExitUsage:
		return statusBadRequest
	case ExitRefused:
		return statusConflict
	}
	return statusInternalServerError
}

// The HTTP statuses of HTTPStatus, net/http's: this package does not
// import net/http, which would link an HTTP client and server, TLS and
// x509 into agentlock, whose every start (each lock call and hook) pays
// their initialisation (docs/speed.md). The tests compare them with
// net/http's.
const (
	statusOK                  = 200
	statusBadRequest          = 400
	statusConflict            = 409
	statusInternalServerError = 500
)

// ErrorOf is the error record of err: its message and its exit code.
func ErrorOf(err error) Error {
	return Error{Kind: "error", Error: err.Error(), ExitCode: ExitCode(err)}
}

// Classed is an error of a class no package error names, said in words:
// a refusal or a usage error of a front end, with, for HTTP, its precise
// status (0: the class's).
type Classed struct {
	Msg    string
	Class  error // ErrRefused or ErrUsage
	Status int
}

func (e *Classed) Error() string { return e.Msg }

// Is makes the error match its class.
func (e *Classed) Is(target error) bool { return target == e.Class }

// HTTPStatus is the precise status, or 0 (see HTTPStatus).
func (e *Classed) HTTPStatus() int { return e.Status }

// Refusedf returns a refusal (exit 1) answered with HTTP status (0: 409).
func Refusedf(status int, format string, args ...any) error {
	return &Classed{Msg: fmt.Sprintf(format, args...), Class: ErrRefused, Status: status}
}

// Usagef returns a usage error (exit 2) answered with HTTP status (0: 400).
func Usagef(status int, format string, args ...any) error {
	return &Classed{Msg: fmt.Sprintf(format, args...), Class: ErrUsage, Status: status}
}
