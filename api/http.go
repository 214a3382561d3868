package api

import (
	"crypto/rand"
	"encoding/hex"
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
	// ReasonWebhookNotFound and ReasonEventNotFound mark the same 500 for a
	// webhook id, or an event id, that is not the caller's company's.
	ReasonWebhookNotFound = "webhook-not-found"
	ReasonEventNotFound   = "event-not-found"
)

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
