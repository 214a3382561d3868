package client

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/traineed/traineed/api"
)

// CallInfo describes a failed call by its last attempt.
type CallInfo struct {
	Method    string
	URL       string
	RequestID string
	Status    int    // 0 when no response arrived
	Body      []byte // the response body, empty for 401 and 500
	Attempts  int

	header         http.Header // extra request headers (If-Match)
	idempotencyKey string      // IdempotencyKey's, or "": the request id
}

// AuthRefusedError is a 401: the API key is missing, malformed, unknown,
// disabled or deleted.
type AuthRefusedError struct{ CallInfo }

func (e *AuthRefusedError) Error() string {
	return "authentication refused (401): check the API key"
}

// TraineeNotFoundError is the 500 marked X-Error-Reason: trainee-not-found:
// no such trainee in the caller's company.
type TraineeNotFoundError struct {
	CallInfo
	ID int64
	// Resource is what the id names: "" for a trainee, "automation" for an
	// automation (answered the same way).
	Resource string
}

func (e *TraineeNotFoundError) Error() string {
	if e.Resource != "" {
		return fmt.Sprintf("%s %d not found", e.Resource, e.ID)
	}
	return fmt.Sprintf("trainee %d not found", e.ID)
}

// RejectedError is a 4xx other than 401; for a 400 it carries the body the
// contract defines (errorCode, message, field, errors).
type RejectedError struct {
	CallInfo
	api.ErrorBody
}

func (e *RejectedError) Error() string {
	if e.ErrorCode == 0 {
		return fmt.Sprintf("request rejected: %d %s", e.Status, http.StatusText(e.Status))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "request rejected (%d): ", e.ErrorCode)
	// The field once: some messages name it already ("action.url: ...").
	if e.Field != "" && !strings.HasPrefix(e.Message, e.Field+":") {
		b.WriteString(e.Field + ": ")
	}
	msg := e.Message
	if msg == "" {
		msg = "invalid request"
	}
	b.WriteString(msg)
	if n := len(e.Errors); n > 1 {
		fmt.Fprintf(&b, " (and %d more)", n-1)
	}
	return b.String()
}

// PreconditionFailedError is a 412 (errorCode 1026): the If-Match sent
// (IfMatch's etag) is not the trainee's ETag any more, because
// someone changed it since it was read; nothing was changed. It unwraps to
// its *RejectedError.
type PreconditionFailedError struct {
	*RejectedError
	ID int64 // the trainee
}

func (e *PreconditionFailedError) Error() string {
	if e.ID != 0 {
		return fmt.Sprintf("trainee %d changed since it was read (412): nothing was changed; read it again and re-apply the change", e.ID)
	}
	return "the trainee changed since it was read (412): nothing was changed; read it again and re-apply the change"
}

func (e *PreconditionFailedError) Unwrap() error { return e.RejectedError }

// ErasedError is a create's 409 with errorCode 1038 (api.CodeErased): sent
// with RefuseErased, it named the e-mail address (Field "email") or phone
// number ("phoneNumber") of a trainee erased from the company at
// ErasedAt; nothing was created. It unwraps to its *RejectedError.
type ErasedError struct {
	*RejectedError
	ErasedAt time.Time
}

func (e *ErasedError) Error() string {
	return api.ErasedReason(e.Field, e.ErasedAt) + ": not created"
}

func (e *ErasedError) Unwrap() error { return e.RejectedError }

// erasedError reads a 1038's erasedAt from its body.
func erasedError(re *RejectedError, body []byte) *ErasedError {
	var b struct {
		ErasedAt time.Time `json:"erasedAt"`
	}
	_ = json.Unmarshal(body, &b)
	return &ErasedError{RejectedError: re, ErasedAt: b.ErasedAt}
}

// ServerError is a 5xx that persisted through the retries, or any other
// status the API never sends.
type ServerError struct{ CallInfo }

func (e *ServerError) Error() string {
	s := fmt.Sprintf("server error: %d %s", e.Status, http.StatusText(e.Status))
	if e.Attempts > 1 {
		s += fmt.Sprintf(" (after %d attempts)", e.Attempts)
	}
	return s
}

// NetworkError is a failure to reach the server or to read its answer,
// after the retries.
type NetworkError struct {
	CallInfo
	Err error
}

func (e *NetworkError) Error() string {
	cause := e.Err
	var ue *url.Error
	if errors.As(cause, &ue) {
		cause = ue.Err
	}
	s := "cannot reach " + e.URL + ": " + cause.Error()
	if e.Attempts > 1 {
		s += fmt.Sprintf(" (after %d attempts)", e.Attempts)
	}
	return s
}

func (e *NetworkError) Unwrap() error { return e.Err }
