package api

import (
	"errors"
	"fmt"
)

// Error codes of contract section 5. They are stable.
const (
	CodeBadJSON          = 1000
	CodeRequired         = 1001
	CodeInvalidEmail     = 1002
	CodePasswordLength   = 1003
	CodeInvalidEnum      = 1004
	CodeInvalidDate      = 1005
	CodeInvalidPhone     = 1006
	CodeTextLength       = 1007
	CodeEmailTaken       = 1008
	CodePhoneTaken       = 1009
	CodeUnknownTrainer   = 1010
	CodeInvalidRange     = 1011
	CodeInvalidParameter = 1012
	CodeReserved         = 1013
	// CodeControlChar: a text field or query parameter holds a control
	// character (U+0000 to U+001F other than tab, U+007F to U+009F) or a
	// bidirectional formatting character (U+202A to U+202E, U+2066 to
	// U+2069), see ControlChar; or a person's name holds a format
	// character (Cf) or a line or paragraph separator (Zl, Zp), see
	// nameInvisibleChar. The same characters are a CodeInvalidEmail in an
	// e-mail address and a CodeInvalidPhone in a phone number.
	CodeControlChar = 1016
	// CodeDestinationNotAllowed: a webhook's or automation's URL points
	// where the server does not send requests (an internal address,
	// localhost, credentials in the URL, a port outside 1-65535, plain http
	// on a server that requires https).
	CodeDestinationNotAllowed = 1018
	// CodeLimitReached: the company already has as many webhooks or
	// automations as the server allows.
	CodeLimitReached = 1019
	// CodeUnavailable: the database did not answer (its connection was
	// lost, twice for a read); status 503 with Retry-After. Nothing was
	// done for a read; a write's COMMIT that met a lost connection may have
	// landed: read before repeating it, or send it with an Idempotency-Key.
	CodeUnavailable = 1037
)

// FieldError is one problem in a request.
type FieldError struct {
	ErrorCode int    `json:"errorCode"`
	Message   string `json:"message"`
	Field     string `json:"field,omitempty"`
}

// ValidationError is every problem found in one request; it becomes a 400.
type ValidationError struct {
	Errors []FieldError
}

func (e *ValidationError) Error() string {
	if len(e.Errors) == 0 {
		return "invalid request"
	}
	f := e.Errors[0]
	if f.Field != "" {
		return fmt.Sprintf("%s: %s (%d)", f.Field, f.Message, f.ErrorCode)
	}
	return fmt.Sprintf("%s (%d)", f.Message, f.ErrorCode)
}

// Add records a problem.
func (e *ValidationError) Add(code int, field, format string, args ...any) {
	e.Errors = append(e.Errors, FieldError{ErrorCode: code, Field: field, Message: fmt.Sprintf(format, args...)})
}

// merge records the problems of err, a *ValidationError or nil.
func (e *ValidationError) merge(err error) {
	var o *ValidationError
	if errors.As(err, &o) {
		e.Errors = append(e.Errors, o.Errors...)
	}
}

// Err returns e when it holds a problem, else nil.
func (e *ValidationError) Err() error {
	if e == nil || len(e.Errors) == 0 {
		return nil
	}
	return e
}

// Invalid returns a ValidationError with one problem.
func Invalid(code int, field, format string, args ...any) error {
	e := &ValidationError{}
	e.Add(code, field, format, args...)
	return e
}

// ErrorBody is the body of every 400.
type ErrorBody struct {
	ErrorCode int          `json:"errorCode"`
	Message   string       `json:"message"`
	Field     string       `json:"field,omitempty"`
	Errors    []FieldError `json:"errors"`
}

// Body returns the 400 body of e: its first problem repeated at the top.
func (e *ValidationError) Body() ErrorBody {
	b := ErrorBody{Errors: e.Errors}
	if len(e.Errors) > 0 {
		b.ErrorCode, b.Message, b.Field = e.Errors[0].ErrorCode, e.Errors[0].Message, e.Errors[0].Field
	}
	return b
}

// Errors the store returns, mapped to statuses in one place (writeError).
var (
	// ErrNotFound: no such row in the caller's company.
	ErrNotFound = errors.New("not found")
	// ErrUnauthorized: the API key is missing, malformed, unknown or revoked.
	ErrUnauthorized = errors.New("unauthorized")
	// ErrUnavailable: the database connection was lost (a restart, a
	// failover, a terminated backend) or the database refuses connections
	// for now. Nothing was done when it comes from a read; a GET or HEAD
	// is retried once, then answered 503 (CodeUnavailable).
	ErrUnavailable = errors.New("database unavailable")
)

// ConflictError is a unique violation. Field names the API field that
// collided: "email" or "phoneNumber".
type ConflictError struct {
	Field string
}

func (e *ConflictError) Error() string { return "conflict on " + e.Field }

// ValidationFromConflict turns a conflict into the 400 the contract asks for.
func ValidationFromConflict(c *ConflictError) *ValidationError {
	v := &ValidationError{}
	if c.Field == "phoneNumber" {
		v.Add(CodePhoneTaken, "phoneNumber", "phone number is already in use")
	} else {
		v.Add(CodeEmailTaken, "email", "e-mail address is already in use")
	}
	return v
}
