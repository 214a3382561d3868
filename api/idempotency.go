package api

import (
	"context"
	"errors"
)

// Idempotency keys (issue 16): a POST under /public-api/ may carry
// HeaderIdempotencyKey. The first answer (any status below 500) is kept 24
// hours per company and key, written in the same transaction as the change
// it answers; a repeat with the same request gets it again with
// HeaderIdempotentReplayed: true and changes nothing.
const (
	HeaderIdempotencyKey     = "Idempotency-Key"
	HeaderIdempotentReplayed = "Idempotent-Replayed"

	// CodeIdempotencyMismatch: the Idempotency-Key was used before with a
	// different request (method, path or body) (400).
	CodeIdempotencyMismatch = 1015
	// CodeIdempotencyInProgress: the first request with this key is still
	// running and did not finish within the wait (409).
	CodeIdempotencyInProgress = 1017

	// MaxIdempotencyKeyLen is the longest key accepted.
	MaxIdempotencyKeyLen = 255
)

// IdempotencyTTLHours is how long an answer is kept.
const IdempotencyTTLHours = 24

// ErrIdempotencyMismatch is CodeIdempotencyMismatch.
var ErrIdempotencyMismatch = errors.New("this Idempotency-Key was used with a different request")

// ErrIdempotencyInProgress is CodeIdempotencyInProgress.
var ErrIdempotencyInProgress = errors.New("the first request with this Idempotency-Key is still in progress")

// IdempotencyMismatchBody is the body of the 400 of ErrIdempotencyMismatch.
func IdempotencyMismatchBody() ErrorBody {
	e := &ValidationError{}
	e.Add(CodeIdempotencyMismatch, HeaderIdempotencyKey, "this Idempotency-Key was used with a different request (method, path or body)")
	return e.Body()
}

// IdempotencyInProgressBody is the body of the 409 of ErrIdempotencyInProgress.
func IdempotencyInProgressBody() ErrorBody {
	e := &ValidationError{}
	e.Add(CodeIdempotencyInProgress, HeaderIdempotencyKey, "the first request with this Idempotency-Key is still in progress; retry later")
	return e.Body()
}

// ValidIdempotencyKey reports whether k is 1 to 255 printable ASCII
// characters (space to tilde).
func ValidIdempotencyKey(k string) bool {
	if len(k) == 0 || len(k) > MaxIdempotencyKeyLen {
		return false
	}
	for i := 0; i < len(k); i++ {
		if k[i] < 0x20 || k[i] > 0x7e {
			return false
		}
	}
	return true
}

// IdempotentAnswer is an answer kept for an idempotency key.
type IdempotentAnswer struct {
	Status      int
	ContentType string
	Body        []byte
	ETag        string // the answer's ETag header, "" for none
	Replayed    bool   // the answer is a stored one, nothing ran
	// NotKept: the answer is not kept, as a 5xx's is not (the key is free
	// again): a 409 1038, the refusal asked for by Traineed-Refuse-Erased,
	// which the request compared does not hold, so that the same create
	// sent again without it (--allow-erased) runs.
	NotKept bool
}

// IdempotencyStore keeps the answers of idempotent requests.
type IdempotencyStore interface {
	// Idempotent runs run at most once per company and key within
	// IdempotencyTTLHours. Every store write run makes (through the ctx it
	// is given) joins one transaction with the storing of run's answer, so
	// a committed change always has its answer. A key already answered
	// with the same fingerprint returns the stored answer with Replayed;
	// with another fingerprint ErrIdempotencyMismatch. An answer of 500 or
	// more is returned but not kept, and the changes run made are rolled
	// back. A key whose first request is still running is waited for (the
	// database's lock wait); ErrIdempotencyInProgress when the wait ends.
	Idempotent(ctx context.Context, companyID int64, key string, fingerprint [32]byte,
		run func(ctx context.Context) *IdempotentAnswer) (*IdempotentAnswer, error)
}

// ErrRateLimited is a request over its API key's rate limit: a 429 with
// Retry-After and an empty body.
var ErrRateLimited = errors.New("rate limit exceeded")
