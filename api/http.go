package api

import (
	"crypto/rand"
	"encoding/hex"
	"mime"
	"strings"
)

// Paths of the public API, relative to the base URL.
const (
	PathTrainees = "/public-api/trainees"
	PathSearch   = "/public-api/trainees/search"
	PathTrainers = "/public-api/trainers"
)

// Headers of the contract.
const (
	HeaderAPIKey      = "X-API-Key"
	HeaderRequestID   = "X-Request-Id"
	HeaderErrorReason = "X-Error-Reason"
	// ReasonTraineeNotFound marks the 500 that means "no such trainee in
	// your company"; clients never retry it.
	ReasonTraineeNotFound = "trainee-not-found"
	// ReasonWebhookNotFound and ReasonEventNotFound marked the same 500 for
	// a webhook id, or an event id, that is not the caller's company's,
	// before those became a 404 (CodeNotFound): clients still read them
	// from older servers.
	ReasonWebhookNotFound = "webhook-not-found"
	ReasonEventNotFound   = "event-not-found"
)

// Status codes of the errors beyond the 400s (each with its JSON body but
// the seed's empty 401 and 500s).
const (
	// CodeNoRoute: no route serves the path (404).
	CodeNoRoute = 1020
	// CodeMethodNotAllowed: the path's route takes other methods, named
	// in Allow (405).
	CodeMethodNotAllowed = 1021
	// CodeBodyTooLarge: the body is over MaxBodyBytes (413).
	CodeBodyTooLarge = 1022
	// CodeRateLimited: the API key is over its rate limit; Retry-After says
	// when to come back (429).
	CodeRateLimited = 1023
	// CodeUnsupportedMediaType: a body whose Content-Type is not JSON (415).
	CodeUnsupportedMediaType = 1024
	// CodeNotFound: the id names no webhook, event or automation of the
	// caller's company (404; another company's id is answered alike). A
	// trainee id keeps the seed's empty 500.
	CodeNotFound = 1025
)

// ErrorOf is the body of a refusal with one problem.
func ErrorOf(code int, field, format string, args ...any) ErrorBody {
	e := &ValidationError{}
	e.Add(code, field, format, args...)
	return e.Body()
}

// IsJSONMediaType reports whether a Content-Type names JSON:
// application/json or application/*+json, with any parameters, or none at
// all (a body without a Content-Type is read as JSON).
func IsJSONMediaType(contentType string) bool {
	if contentType == "" {
		return true
	}
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		return false
	}
	return mt == "application/json" || strings.HasPrefix(mt, "application/") && strings.HasSuffix(mt, "+json")
}

// MaxBodyBytes is the largest request body accepted; more is a 413.
const MaxBodyBytes = 1 << 20

// MaxRequestIDLength bounds a caller's X-Request-Id.
const MaxRequestIDLength = 128

// SaneRequestID reports whether a caller's X-Request-Id may be kept: 1 to
// 128 characters of letters, digits and -_.: (anything else is replaced
// by a new id, so ids can go into logs and file names as they are).
func SaneRequestID(id string) bool {
	if id == "" || len(id) > MaxRequestIDLength {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.' || c == ':') {
			return false
		}
	}
	return true
}

// NewRequestID returns a random request id (32 hexadecimal characters).
func NewRequestID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
