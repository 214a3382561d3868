package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"
)

// Company administration over the API (issue 34): a company's keys, its
// trainers and its settings, under the admin scope. The operator's
// commands (traineed company/key create) only bootstrap a company and
// its first admin key.

// Paths of company administration.
const (
	PathKeys    = "/public-api/keys"
	PathCompany = "/public-api/company"
)

// KeyScopeAdmin may call every route: the full scope's and the
// administration of keys, trainers and the company's settings.
const KeyScopeAdmin = "admin"

// scopeRank orders the scopes: each includes those below it.
var scopeRank = map[string]int{KeyScopeRead: 1, KeyScopeFull: 2, KeyScopeAdmin: 3}

// ScopeIncludes reports whether a key of scope have may call a route that
// needs scope need (admin ⊇ full ⊇ read). An unknown scope includes
// nothing.
func ScopeIncludes(have, need string) bool {
	h, ok := scopeRank[have]
	return ok && h >= scopeRank[need]
}

// Error codes of company administration.
const (
	// CodeAdminScope: the route needs an admin key (403).
	CodeAdminScope = 1029
	// CodeOwnTrainees: the key acts for one trainer's trainees only
	// (ownTraineesOnly) and the route reaches beyond them (403).
	CodeOwnTrainees = 1030
	// CodeEscalation: a key may not change its own scope (403).
	CodeEscalation = 1031
	// CodeLastAdminKey: the change would leave the company without an
	// enabled admin key that does not expire (409).
	CodeLastAdminKey = 1032
	// CodeTrainerHasTrainees: a trainer with trainees is deactivated
	// without reassignTo (409).
	CodeTrainerHasTrainees = 1033
	// CodeNoActiveTrainer: a trainee is created without trainerId in a
	// company that has no active trainer (400).
	CodeNoActiveTrainer = 1034
	// CodeTrainerInactive: trainees are given to a deactivated trainer
	// (400).
	CodeTrainerInactive = 1035
	// CodeKeyRevoked: a revoked key cannot be changed, rotated or
	// revoked again (409).
	CodeKeyRevoked = 1036
)

// Refusals of a route to a key, each a 403 with its JSON error, before
// the route runs (nothing changes).
var (
	ErrAdminScope  = errors.New("this route needs an admin key")
	ErrOwnTrainees = errors.New("this key acts for its trainer's trainees only")
	ErrEscalation  = errors.New("a key cannot change its own scope")
)

// ConflictStateError is a change refused because of the state of what it
// changes (409 with Code): the last admin key, a trainer with trainees, a
// revoked key.
type ConflictStateError struct {
	Code    int
	Field   string
	Message string
}

func (e *ConflictStateError) Error() string { return e.Message }

// Body is the 409's JSON error.
func (e *ConflictStateError) Body() ErrorBody { return ErrorOf(e.Code, e.Field, "%s", e.Message) }

// LastAdminKey is the refusal of a change that would leave the company
// without a standing admin key (StandingAdmin).
func LastAdminKey(id int64) error {
	return &ConflictStateError{Code: CodeLastAdminKey, Message: fmt.Sprintf(
		"key %d is the company's last enabled admin key without an expiry: create another admin key first, so the company never locks itself out", id)}
}

// RevokedKey is the refusal of a change to a revoked key.
func RevokedKey(id int64) error {
	return &ConflictStateError{Code: CodeKeyRevoked, Field: "id", Message: fmt.Sprintf("key %d is revoked: create a new key instead", id)}
}

// TrainerHasTrainees is the refusal to deactivate a trainer who still has
// trainees (n of them, deleted ones counted).
func TrainerHasTrainees(id int64, n int) error {
	return &ConflictStateError{Code: CodeTrainerHasTrainees, Field: "reassignTo", Message: fmt.Sprintf(
		"trainer %d has %d %s (soft-deleted ones included): name reassignTo, the trainer who takes them over", id, n, plural(n, "trainee", "trainees"))}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Key states: active, disabled (by a person), expired (its expiresAt
// passed), revoked (deleted: refused for good, kept for the feed's
// names).
const (
	KeyExpired = "expired"
	KeyRevoked = "revoked"
)

// KeyStates are the states GET /keys filters by (state=), besides all.
var KeyStates = []string{KeyActive, KeyDisabled, KeyExpired, KeyRevoked}

// KeyState is the state of a key at now.
func KeyState(disabled bool, revokedAt, expiresAt *time.Time, now time.Time) string {
	switch {
	case revokedAt != nil:
		return KeyRevoked
	case disabled:
		return KeyDisabled
	case expiresAt != nil && !now.Before(*expiresAt):
		return KeyExpired
	}
	return KeyActive
}

// Key rotation: the previous secret keeps working for an overlap the
// caller chooses.
const (
	DefaultKeyOverlap = 24 * time.Hour
	MaxKeyOverlap     = 7 * 24 * time.Hour
)

// KeysList is GET /public-api/keys: by id, keyset.
var KeysList = ListParams{Default: DefaultPageSize, Max: MaxPageSize, Keys: 1}

// KeyEnvelope is the body of every single-key answer. Secret is present on
// create and rotate only: the only times a key is ever shown.
type KeyEnvelope struct {
	Timestamp int64   `json:"timestamp"`
	Key       *APIKey `json:"key"`
	Secret    string  `json:"secret,omitempty"`
}

// KeyList is the body of GET /public-api/keys.
type KeyList struct {
	Timestamp int64      `json:"timestamp"`
	Keys      []*APIKey  `json:"keys"`
	Page      CursorPage `json:"page"`
}

func (p *KeyList) Rows() []*APIKey    { return p.Keys }
func (p *KeyList) Paging() CursorPage { return p.Page }

// NewKey is a key to create: POST /public-api/keys.
type NewKey struct {
	Name            string     `json:"name"`
	Scope           string     `json:"scope"`
	TrainerID       *int64     `json:"trainerId,omitempty"`
	OwnTraineesOnly bool       `json:"ownTraineesOnly,omitempty"`
	ExpiresAt       *time.Time `json:"expiresAt,omitempty"`
	// Hash and Prefix are the new secret's SHA-256 and display prefix,
	// set by the server; never read from a body.
	Hash   [32]byte `json:"-"`
	Prefix string   `json:"-"`
}

// KeyPatch is a change to a key (PATCH /public-api/keys/{id}); nil fields
// are left alone. ExpiresAt with ClearExpiry false sets the expiry;
// ClearExpiry (expiresAt: null) removes it.
type KeyPatch struct {
	Name        *string    `json:"name,omitempty"`
	ExpiresAt   *time.Time `json:"expiresAt,omitempty"`
	ClearExpiry bool       `json:"-"`
	Enabled     *bool      `json:"enabled,omitempty"`
	Scope       *string    `json:"scope,omitempty"`
}

// MarshalJSON writes expiresAt: null for ClearExpiry (the client's
// encoding of the patch).
func (p KeyPatch) MarshalJSON() ([]byte, error) {
	type plain KeyPatch
	b, err := json.Marshal(plain(p))
	if err != nil || !p.ClearExpiry {
		return b, err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	m["expiresAt"] = json.RawMessage("null")
	return json.Marshal(m)
}

// KeyRotation is the body of POST /public-api/keys/{id}/rotate (optional):
// how long the previous secret keeps working, in seconds (default 24 h,
// at most 7 days; 0 refuses it at once).
type KeyRotation struct {
	OverlapSeconds *int64 `json:"overlapSeconds,omitempty"`
}

// ParseNewKey reads the body of POST /public-api/keys: name and scope
// required; trainerId, ownTraineesOnly (needs trainerId, and a full or
// read scope: such a key is refused every company-wide route) and
// expiresAt (an RFC 3339 instant after now) optional.
func ParseNewKey(body []byte, now time.Time) (*NewKey, error) {
	m, err := object(body)
	if err != nil {
		return nil, err
	}
	f := &fields{m: m, v: &ValidationError{}, skip: map[string]bool{}}
	out := &NewKey{}
	if raw, ok := f.present("name", true, false); ok && f.str("name", raw, &out.Name) {
		out.Name = keyName(f.v, out.Name)
	}
	if raw, ok := f.present("scope", true, false); ok {
		var s string
		if f.str("scope", raw, &s) {
			out.Scope = keyScope(f.v, s)
		}
	}
	if raw, ok := f.present("trainerId", false, true); ok {
		var id int64
		if f.integer("trainerId", raw, &id) {
			if id <= 0 {
				f.v.Add(CodeUnknownTrainer, "trainerId", "trainer %d is not a trainer of this company", id)
			}
			out.TrainerID = &id
		}
	}
	if raw, ok := f.present("ownTraineesOnly", false, true); ok {
		f.boolean("ownTraineesOnly", raw, &out.OwnTraineesOnly)
	}
	if raw, ok := f.present("expiresAt", false, true); ok {
		out.ExpiresAt = f.instant("expiresAt", raw, now)
	}
	if out.OwnTraineesOnly {
		if out.TrainerID == nil && !f.skip["trainerId"] {
			f.v.Add(CodeRequired, "trainerId", "ownTraineesOnly needs trainerId: the trainer whose trainees the key may reach")
		}
		if out.Scope == KeyScopeAdmin {
			f.v.Add(CodeInvalidEnum, "scope", "a key limited to its trainer's trainees (ownTraineesOnly) has scope full or read: administration reaches the whole company")
		}
	}
	return out, f.v.Err()
}

// ParseKeyPatch reads the body of PATCH /public-api/keys/{id}: any of
// name, expiresAt (null removes it), enabled, scope. trainerId and
// ownTraineesOnly are fixed when a key is made (400 1012 here).
func ParseKeyPatch(body []byte, now time.Time) (*KeyPatch, error) {
	m, err := object(body)
	if err != nil {
		return nil, err
	}
	f := &fields{m: m, v: &ValidationError{}, skip: map[string]bool{}}
	p := &KeyPatch{}
	if raw, ok := f.present("name", false, false); ok {
		var s string
		if f.str("name", raw, &s) {
			s = keyName(f.v, s)
			p.Name = &s
		}
	}
	if raw, in := m["expiresAt"]; in {
		if isNull(raw) {
			p.ClearExpiry = true
		} else {
			p.ExpiresAt = f.instant("expiresAt", raw, now)
		}
	}
	if raw, ok := f.present("enabled", false, false); ok {
		var b bool
		if f.boolean("enabled", raw, &b) {
			p.Enabled = &b
		}
	}
	if raw, ok := f.present("scope", false, false); ok {
		var s string
		if f.str("scope", raw, &s) {
			s = keyScope(f.v, s)
			p.Scope = &s
		}
	}
	for _, fixed := range []string{"trainerId", "ownTraineesOnly"} {
		if _, in := m[fixed]; in {
			f.v.Add(CodeInvalidParameter, fixed, "%s is fixed when a key is created: create a new key instead", fixed)
		}
	}
	return p, f.v.Err()
}

// ParseKeyRotation reads the optional body of POST /keys/{id}/rotate and
// returns the overlap.
func ParseKeyRotation(body []byte) (time.Duration, error) {
	if len(strings.TrimSpace(string(body))) == 0 {
		return DefaultKeyOverlap, nil
	}
	m, err := object(body)
	if err != nil {
		return 0, err
	}
	f := &fields{m: m, v: &ValidationError{}, skip: map[string]bool{}}
	overlap := DefaultKeyOverlap
	if raw, ok := f.present("overlapSeconds", false, true); ok {
		var n int64
		if f.integer("overlapSeconds", raw, &n) {
			if n < 0 || n > int64(MaxKeyOverlap/time.Second) {
				f.v.Add(CodeInvalidParameter, "overlapSeconds", "overlapSeconds must be from 0 to %d (7 days)", int64(MaxKeyOverlap/time.Second))
			}
			overlap = time.Duration(n) * time.Second
		}
	}
	return overlap, f.v.Err()
}

// keyName trims a key's name and checks its length (1007).
func keyName(v *ValidationError, name string) string {
	name = strings.TrimSpace(name)
	if n := len([]rune(name)); n == 0 || n > MaxNameLength {
		v.Add(CodeTextLength, "name", "name must be 1 to %d characters", MaxNameLength)
	}
	return name
}

// keyScope checks a scope (1004).
func keyScope(v *ValidationError, s string) string {
	if !ValidKeyScope(s) {
		v.Add(CodeInvalidEnum, "scope", "scope must be admin, full or read, not %q", s)
	}
	return s
}

// instant reads an RFC 3339 instant after now (1005).
func (f *fields) instant(name string, raw json.RawMessage, now time.Time) *time.Time {
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		f.typeError(name, "an RFC 3339 date and time such as 2027-01-31T18:00:00Z")
		return nil
	}
	t, err := time.Parse(time.RFC3339, s)
	switch {
	case err != nil:
		f.v.Add(CodeInvalidDate, name, "%s must be an RFC 3339 date and time such as 2027-01-31T18:00:00Z, not %q", name, s)
	case !t.After(now):
		f.v.Add(CodeInvalidDate, name, "%s must be in the future", name)
	default:
		t = t.UTC().Truncate(time.Second)
		return &t
	}
	f.skip[name] = true
	return nil
}

// Events of company administration: in the feed and, to the endpoints
// subscribed to them, as webhooks. Never a secret or a hash.
const (
	EventKeyCreated = "key.created"
	EventKeyRotated = "key.rotated"
	EventKeyRevoked = "key.revoked"
	// EventKeyUpdated: a key's name, expiry, state or scope changed.
	EventKeyUpdated     = "key.updated"
	EventTrainerCreated = "trainer.created"
	EventTrainerUpdated = "trainer.updated"
	EventCompanyUpdated = "company.updated"
)

// AdminEventTypes are the events of company administration.
var AdminEventTypes = []string{EventKeyCreated, EventKeyUpdated, EventKeyRotated, EventKeyRevoked, EventTrainerCreated, EventTrainerUpdated, EventCompanyUpdated}

// AdminEvent is the body of an administration event's delivery (and its
// feed payload): data holds the key, trainer or company as it is after
// the change, the fields changed, and who made it.
type AdminEvent struct {
	Type      string    `json:"type"`
	Timestamp int64     `json:"timestamp"`
	Data      AdminData `json:"data"`
}

// AdminData is the "data" of an AdminEvent: one of Key, Trainer, Company.
type AdminData struct {
	Key           *KeyEventData   `json:"key,omitempty"`
	Trainer       *TrainerSummary `json:"trainer,omitempty"`
	Company       *Company        `json:"company,omitempty"`
	ChangedFields []string        `json:"changedFields,omitempty"`
	Actor         Actor           `json:"actor"`
}

// KeyEventData is a key as its events carry it: never its secret or hash.
type KeyEventData struct {
	ID                      int64      `json:"id"`
	Name                    string     `json:"name"`
	Prefix                  string     `json:"prefix"`
	Scope                   string     `json:"scope"`
	TrainerID               *int64     `json:"trainerId"`
	OwnTraineesOnly         bool       `json:"ownTraineesOnly"`
	ExpiresAt               *time.Time `json:"expiresAt"`
	PreviousSecretExpiresAt *time.Time `json:"previousSecretExpiresAt,omitempty"`
}

// EventData is k as its events carry it.
func (k *APIKey) EventData() *KeyEventData {
	return &KeyEventData{ID: k.ID, Name: k.Name, Prefix: k.Prefix, Scope: k.Scope, TrainerID: k.TrainerID,
		OwnTraineesOnly: k.OwnTraineesOnly, ExpiresAt: k.ExpiresAt, PreviousSecretExpiresAt: k.PreviousSecretExpiresAt}
}

// KeyListQuery is GET /public-api/keys: a page, of one state or of every
// state but revoked ("").
type KeyListQuery struct {
	ListQuery
	State string // "" (all but revoked), "all", or one of KeyStates
	Now   time.Time
}

// ParseKeyListQuery reads GET /public-api/keys: state (active, disabled,
// expired, revoked or all; absent: every state but revoked) and the list's
// paging.
func ParseKeyListQuery(q url.Values, companyID int64, now time.Time) (KeyListQuery, error) {
	v := &ValidationError{}
	state := q.Get("state")
	if state != "" && state != "all" && !slices.Contains(KeyStates, state) {
		v.Add(CodeInvalidParameter, "state", "state must be active, disabled, expired, revoked or all")
		state = ""
	}
	lq, err := ParseListQuery(q, KeysList, ListFingerprint("keys", companyID, state))
	var lv *ValidationError
	if errors.As(err, &lv) {
		v.Errors = append(v.Errors, lv.Errors...)
	} else if err != nil {
		return KeyListQuery{}, err
	}
	return KeyListQuery{ListQuery: lq, State: state, Now: now}, v.Err()
}

// AdminStore is what company administration needs from storage. Every
// method takes the caller's company; another company's key or trainer is
// ErrNotFound. Who makes a change is the ctx's actor (WithActor), recorded
// on its event.
type AdminStore interface {
	// CreateCompanyKey stores a key (its hash and prefix, never the
	// secret) and records key.created.
	CreateCompanyKey(ctx context.Context, companyID int64, k NewKey) (*APIKey, error)
	KeyPage(ctx context.Context, companyID int64, q KeyListQuery) (ListPage[*APIKey], error)
	CompanyKey(ctx context.Context, companyID, id int64) (*APIKey, error)
	// UpdateCompanyKey applies p; a change that leaves the company no
	// standing admin key is LastAdminKey, a change to a revoked key
	// RevokedKey.
	UpdateCompanyKey(ctx context.Context, companyID, id int64, p KeyPatch) (*APIKey, error)
	// RotateCompanyKey gives the key a new secret (hash, prefix); the
	// previous one keeps working for overlap; key.rotated.
	RotateCompanyKey(ctx context.Context, companyID, id int64, hash [32]byte, prefix string, overlap time.Duration) (*APIKey, error)
	// RevokeCompanyKey refuses the key from the next request on, for
	// good; key.revoked.
	RevokeCompanyKey(ctx context.Context, companyID, id int64) (*APIKey, error)

	// CompanyTrainers lists the trainers, lowest id first, with their
	// live trainees' counts when counts is set (a pass over the company's
	// trainees), else without (Trainees nil).
	CompanyTrainers(ctx context.Context, companyID int64, counts bool) ([]*TrainerSummary, error)
	CompanyTrainer(ctx context.Context, companyID, id int64) (*TrainerSummary, error)
	CreateCompanyTrainer(ctx context.Context, companyID int64, t NewTrainer) (*TrainerSummary, error)
	// UpdateTrainer applies p; the envelope says, for a deactivation, how
	// many trainees moved and which keys were disabled (Timestamp unset).
	UpdateTrainer(ctx context.Context, companyID, id int64, p TrainerPatch) (*TrainerEnvelope, error)
	// ReassignTrainees moves every trainee of from to to (an active
	// trainer), one trainee.updated each, in one transaction.
	ReassignTrainees(ctx context.Context, companyID, from, to int64) (*ReassignResult, error)

	Company(ctx context.Context, companyID int64) (*Company, error)
	UpdateCompany(ctx context.Context, companyID int64, p CompanyPatch) (*Company, error)

	// TraineeTrainer is the trainer of one trainee of the company (nil:
	// none): what a key limited to its trainer's trainees is checked
	// against.
	TraineeTrainer(ctx context.Context, companyID, traineeID int64) (*int64, error)
}
