package api

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"
)

// Erased people stay erased (issue 38). An erase keeps, for each erased
// trainee, a keyed hash of its normalised e-mail address and phone
// number (HMAC-SHA256 under a secret of the company, never the address or
// the number), so that a stale file imported later does not bring the
// person back: a create sent with HeaderRefuseErased is refused with
// CodeErased when its e-mail or phone number is one of them, and
// POST /trainees/erased-check tells a client's plan the same before it
// sends anything.

// CodeErased: a create sent with HeaderRefuseErased names the e-mail
// address or phone number of a trainee erased from the company (status
// 409, field "email" or "phoneNumber", erasedAt the erase's time);
// nothing is created.
const CodeErased = 1038

// HeaderRefuseErased, sent as "true" on POST /trainees, asks the server
// to refuse (409 CodeErased) a create whose e-mail or phone number was
// erased from the company. Without it a create is as the interface
// defines it.
const HeaderRefuseErased = "Traineed-Refuse-Erased"

// PathErasedCheck is POST /trainees/erased-check.
const PathErasedCheck = PathTrainees + "/erased-check"

// MaxErasedCheck is the most people one erased-check takes.
const MaxErasedCheck = 1000

// Kinds of an erased fingerprint.
const (
	ErasedEmail = "email"
	ErasedPhone = "phone"
)

// ErasedFingerprint is the keyed hash an erase keeps of one identifier
// (kind ErasedEmail or ErasedPhone) under the company's secret:
// HMAC-SHA256 of the normalised value (NormalizeEmail, NormalizePhone),
// the kind prefixed, in lower-case hexadecimal. An empty value has none.
func ErasedFingerprint(secret []byte, kind, value string) string {
	switch kind {
	case ErasedEmail:
		value = NormalizeEmail(value)
	case ErasedPhone:
		value = NormalizePhone(value)
	}
	if value == "" {
		return ""
	}
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(kind + ":" + value))
	return hex.EncodeToString(m.Sum(nil))
}

// ErasedProbe is one person an erased-check asks about.
type ErasedProbe struct {
	Email       string  `json:"email,omitempty"`
	PhoneNumber *string `json:"phoneNumber,omitempty"`
}

// ErasedMatch says that a probe (Index, its place in the request) names
// an erased trainee: by Field ("email" or "phoneNumber", e-mail first
// when both do) erased at ErasedAt (the latest erase of that value).
type ErasedMatch struct {
	Index    int       `json:"index"`
	Field    string    `json:"field"`
	ErasedAt time.Time `json:"erasedAt"`
}

// ErasedCheckRequest is the body of POST /trainees/erased-check.
type ErasedCheckRequest struct {
	People []ErasedProbe `json:"people"`
}

// ErasedCheckEnvelope is its answer: the matches alone, by index.
type ErasedCheckEnvelope struct {
	Timestamp int64         `json:"timestamp"`
	Matches   []ErasedMatch `json:"matches"`
}

// ParseErasedCheck reads an erased-check body: one JSON object whose
// people is a list of at most MaxErasedCheck objects with an optional
// email and phoneNumber (strings, read as they are: a value that is not an
// address or a number matches nothing). Unknown members are ignored, as
// in every body.
func ParseErasedCheck(body []byte) (*ErasedCheckRequest, error) {
	if _, err := object(body); err != nil {
		return nil, err
	}
	var r ErasedCheckRequest
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, Invalid(CodeBadJSON, "people", "people must be a list of objects with an optional email and phoneNumber, both strings")
	}
	if r.People == nil {
		return nil, Invalid(CodeRequired, "people", "people is required")
	}
	if len(r.People) > MaxErasedCheck {
		return nil, Invalid(CodeInvalidParameter, "people", "people holds %d entries; at most %d per request", len(r.People), MaxErasedCheck)
	}
	return &r, nil
}

// ErasedError refuses a create whose e-mail (Field "email") or phone
// number ("phoneNumber") was erased at ErasedAt: 409 CodeErased.
type ErasedError struct {
	Field    string
	ErasedAt time.Time
}

func (e *ErasedError) Error() string {
	what := "e-mail address"
	if e.Field == "phoneNumber" {
		what = "phone number"
	}
	return fmt.Sprintf("the %s is a trainee's erased on %s: not created (send the create without %s to import it anyway)",
		what, e.ErasedAt.UTC().Format(time.DateOnly), HeaderRefuseErased)
}

// ErasedBody is the 409's body: the error and when the erase was.
type ErasedBody struct {
	ErrorBody
	ErasedAt time.Time `json:"erasedAt"`
}

// Body is the 409's JSON.
func (e *ErasedError) Body() ErasedBody {
	return ErasedBody{ErrorBody: ErrorOf(CodeErased, e.Field, "%s", e.Error()), ErasedAt: e.ErasedAt.UTC()}
}

// ErasedChecker is what the handler needs for the check: the matches
// among people of the company's erased fingerprints (none when the
// company never erased anyone).
type ErasedChecker interface {
	ErasedMatches(ctx context.Context, companyID int64, people []ErasedProbe) ([]ErasedMatch, error)
}

// ErasedReason is how people read a match of an erased person: "erased on
// 2026-11-28 (e-mail)" or "(phone number)", by the field that matched.
func ErasedReason(field string, at time.Time) string {
	what := "e-mail"
	if field == "phoneNumber" {
		what = "phone number"
	}
	return "erased on " + at.UTC().Format(time.DateOnly) + " (" + what + ")"
}
