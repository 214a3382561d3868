package cmdutil

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/client"
	"github.com/traineed/traineed/cmd/internal/textout"
	"github.com/traineed/traineed/cmd/traineectl/internal/iostreams"
	"github.com/traineed/traineed/cmd/traineectl/internal/output"
)

// Exit statuses of commands.md. This is the only place that maps errors to them.
const (
	ExitOK        = 0 // success
	ExitFailure   = 1 // any other failure (network, unreadable response, file errors)
	ExitUsage     = 2 // usage error: bad flag, bad date, missing argument, refused confirmation
	ExitAuth      = 3 // authentication refused (401)
	ExitNotFound  = 4 // trainee, webhook or event not found (500 marked *-not-found)
	ExitRejected  = 5 // request rejected (400 and other 4xx)
	ExitServer    = 6 // server error after retries
	ExitForbidden = 7 // forbidden (403): a write with a read-only key
	// ExitInterrupted is the status of a command the user interrupted
	// (Ctrl-C), as shells and other tools give: 128 + SIGINT.
	ExitInterrupted = 130
)

// UsageError is a mistake on the command line.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// Usagef returns a UsageError.
func Usagef(format string, args ...any) error {
	return &UsageError{fmt.Errorf(format, args...)}
}

// StatusError is an error whose exit status the command chose; it is
// printed as Err is.
type StatusError struct {
	Code int
	Err  error
}

func (e *StatusError) Error() string { return e.Err.Error() }
func (e *StatusError) Unwrap() error { return e.Err }

// Declinedf is the error of a confirmation answered no (or not as asked):
// exit status 2, a refused confirmation, printed without the "Run with
// --help" line of a usage error, since nothing was misused.
func Declinedf(format string, args ...any) error {
	return &StatusError{Code: ExitUsage, Err: fmt.Errorf(format, args...)}
}

// HintError is an error with advice for people: PrintError writes Hint
// after the error, as a "hint:" line (not in -o json). Its exit status is
// Err's.
type HintError struct {
	Err  error
	Hint string
}

func (e *HintError) Error() string { return e.Err.Error() }
func (e *HintError) Unwrap() error { return e.Err }

// ReportedError means the errors were already printed (one per failed
// item of a command over several ids); Code is the exit status.
type ReportedError struct{ Code int }

func (e *ReportedError) Error() string { return fmt.Sprintf("exit status %d", e.Code) }

// ExitCode maps an error to the exit status.
func ExitCode(err error) int {
	var (
		usage    *UsageError
		fields   *output.FieldsError
		noKey    *NoKeyError
		reported *ReportedError
		status   *StatusError
		auth     *client.AuthRefusedError
		notFound *client.TraineeNotFoundError
		other    *client.NotFoundError
		rejected *client.RejectedError
		server   *client.ServerError
	)
	switch {
	case err == nil:
		return ExitOK
	case errors.As(err, &reported):
		return reported.Code
	case errors.As(err, &status):
		return status.Code
	case errors.Is(err, context.Canceled):
		return ExitInterrupted
	case errors.As(err, &usage), errors.As(err, &fields):
		return ExitUsage
	case errors.As(err, new(*ReadOnlyError)):
		return ExitForbidden
	case errors.As(err, &auth), errors.As(err, &noKey):
		return ExitAuth
	case errors.As(err, &notFound), errors.As(err, &other):
		return ExitNotFound
	case errors.As(err, &rejected) && rejected.Status == 403:
		return ExitForbidden
	case errors.As(err, &rejected):
		return ExitRejected
	case errors.As(err, &server):
		return ExitServer
	default:
		return ExitFailure
	}
}

// CombinedExitCode is the status of a command over several items: the
// items' common status, or 1 when they failed differently.
func CombinedExitCode(errs []error) int {
	code := ExitOK
	for _, err := range errs {
		c := ExitCode(err)
		switch {
		case c == ExitOK:
		case code == ExitOK:
			code = c
		case code != c:
			return ExitFailure
		}
	}
	return code
}

// ErrorObject is what `-o json` prints on stderr for an error:
// {"error": {"status", "errorCode", "message"}}. status is the HTTP status
// (null when no response arrived); errorCode is the 400's errorCode (else
// null). field, errors and requestId are added when known.
type ErrorObject struct {
	Error ErrorDetail `json:"error"`
}

// ErrorDetail is the inside of an ErrorObject.
type ErrorDetail struct {
	Status    *int             `json:"status"`
	ErrorCode *int             `json:"errorCode"`
	Message   string           `json:"message"`
	Field     string           `json:"field,omitempty"`
	Errors    []api.FieldError `json:"errors,omitempty"`
	RequestID string           `json:"requestId,omitempty"`
}

// Detail describes err for people and scripts.
func Detail(err error) ErrorDetail {
	d := ErrorDetail{Message: err.Error()}
	var (
		ci       *client.CallInfo
		auth     *client.AuthRefusedError
		notFound *client.TraineeNotFoundError
		other    *client.NotFoundError
		rejected *client.RejectedError
		server   *client.ServerError
		network  *client.NetworkError
		invalid  *api.ValidationError
	)
	switch {
	case errors.As(err, new(*ReadOnlyError)):
		code, status := api.CodeReadOnlyKey, 403
		d.ErrorCode, d.Status = &code, &status
	case errors.As(err, &auth):
		ci = &auth.CallInfo
	case errors.As(err, &notFound):
		ci = &notFound.CallInfo
	case errors.As(err, &other):
		ci = &other.CallInfo
	case errors.As(err, &rejected):
		ci = &rejected.CallInfo
		if rejected.ErrorCode != 0 {
			code := rejected.ErrorCode
			d.ErrorCode = &code
			d.Message = rejected.Message
			if d.Message == "" {
				d.Message = "request rejected"
			}
			d.Field = rejected.Field
			d.Errors = rejected.Errors
		}
	case errors.As(err, &server):
		ci = &server.CallInfo
	case errors.As(err, &network):
		ci = &network.CallInfo
	case errors.As(err, &invalid) && len(invalid.Errors) > 1:
		d.Errors = invalid.Errors // checked here, before any request: every problem, not only the first
	}
	if ci != nil {
		if ci.Status != 0 {
			status := ci.Status
			d.Status = &status
		}
		d.RequestID = ci.RequestID
	}
	return d
}

// PrintError writes err to stderr: one JSON object when jsonOut, else a line
// "error: ..." (and, for a 400, one line per problem found). What the
// server said is shown escaped (api.EscapeText in text, textout's JSON
// writer in JSON): a message never commands the terminal.
func PrintError(ios *iostreams.IOStreams, err error, jsonOut bool) {
	if err == nil || errors.As(err, new(*ReportedError)) {
		return
	}
	if errors.Is(err, context.Canceled) {
		err = errors.New("interrupted")
	}
	d := Detail(err)
	if jsonOut {
		_ = textout.WriteJSONLine(ios.ErrOut, ErrorObject{d})
		return
	}
	printText(ios.ErrOut, ios.ErrColorEnabled(), err, d)
}

func printText(w io.Writer, color bool, err error, d ErrorDetail) {
	prefix := iostreams.Paint(color, iostreams.Red, "error:")
	fmt.Fprintf(w, "%s %s\n", prefix, api.EscapeText(err.Error()))
	if len(d.Errors) > 1 {
		for _, e := range d.Errors {
			if e.Field != "" {
				fmt.Fprintf(w, "  - %s: %s (%d)\n", api.EscapeText(e.Field), api.EscapeText(e.Message), e.ErrorCode)
			} else {
				fmt.Fprintf(w, "  - %s (%d)\n", api.EscapeText(e.Message), e.ErrorCode)
			}
		}
	}
	var auth *client.AuthRefusedError
	if errors.As(err, &auth) {
		fmt.Fprintln(w, "hint: set the key with --api-key, TRAINEECTL_API_KEY or `traineectl config set-profile`")
	}
	var noKey *NoKeyError
	if errors.As(err, &noKey) {
		fmt.Fprintln(w, "hint: save one with `traineectl config set-profile NAME --api-key-stdin` (or the prompt on a terminal), or set TRAINEECTL_API_KEY; keys come from `traineed key create`")
	}
	if client.IsReadOnly(err) || errors.As(err, new(*ReadOnlyError)) {
		fmt.Fprintln(w, "hint: use a full key for changes (`traineectl whoami` shows the key's scope)")
	}
	adminHint(w, err)
	var usage *UsageError
	if errors.As(err, &usage) {
		fmt.Fprintln(w, "Run with --help for usage.")
	}
	if d.RequestID != "" && !errors.As(err, &usage) {
		var nf *client.TraineeNotFoundError
		var onf *client.NotFoundError
		if d.Status != nil && *d.Status >= 500 && !errors.As(err, &nf) && !errors.As(err, &onf) {
			fmt.Fprintf(w, "request id: %s (quote it to support)\n", api.EscapeText(d.RequestID))
		}
	}
}

// adminHint advises on the refusals of company administration (an admin
// route with another key, a key limited to its trainer's trainees) and
// writes a HintError's hint.
func adminHint(w io.Writer, err error) {
	var rejected *client.RejectedError
	if errors.As(err, &rejected) && rejected.Status == 403 {
		switch rejected.ErrorCode {
		case api.CodeAdminScope:
			fmt.Fprintln(w, "hint: this command needs an admin key; `traineectl whoami` shows the scope of the key in use")
		case api.CodeOwnTrainees:
			fmt.Fprintln(w, "hint: this key acts for its trainer's trainees only (`traineectl whoami` shows it); use a company key for the whole company")
		}
	}
	var he *HintError
	if errors.As(err, &he) {
		fmt.Fprintf(w, "hint: %s\n", api.EscapeText(he.Hint))
	}
}
