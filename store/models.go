package store

import (
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/traineed/traineed/api"
)

type companyRow struct {
	bun.BaseModel `bun:"table:companies,alias:c"`

	ID        int64     `bun:"id,pk,autoincrement"`
	Name      string    `bun:"name"`
	TimeZone  string    `bun:"time_zone"`
	CreatedAt time.Time `bun:"created_at"`
}

func (c *companyRow) toAPI() *api.Company {
	return &api.Company{ID: c.ID, Name: c.Name, TimeZone: c.TimeZone, CreatedAt: c.CreatedAt}
}

// userRow is a person: trainers and trainees both have one.
type userRow struct {
	bun.BaseModel `bun:"table:users,alias:u"`

	ID           int64     `bun:"id,pk,autoincrement"`
	Email        string    `bun:"email"`
	Phone        *string   `bun:"phone"`
	Name         string    `bun:"name"`
	SearchName   string    `bun:"search_name"` // searchName(Name)
	PasswordHash string    `bun:"password_hash"`
	CreatedAt    time.Time `bun:"created_at"`
}

type trainerRow struct {
	bun.BaseModel `bun:"table:trainers,alias:tr"`

	ID        int64     `bun:"id,pk,autoincrement"`
	CompanyID int64     `bun:"company_id"`
	UserID    int64     `bun:"user_id"`
	CreatedAt time.Time `bun:"created_at"`
	Active    bool      `bun:"active"`

	// From users, through the join in trainerQuery.
	Name  string `bun:"name,scanonly"`
	Email string `bun:"email,scanonly"`
}

func (t *trainerRow) toAPI() *api.Trainer {
	return &api.Trainer{ID: t.ID, UserID: t.UserID, CompanyID: t.CompanyID, Name: t.Name, Email: t.Email, Active: t.Active, CreatedAt: t.CreatedAt}
}

type apiKeyRow struct {
	bun.BaseModel `bun:"table:api_keys,alias:k"`

	ID         int64      `bun:"id,pk,autoincrement"`
	CompanyID  int64      `bun:"company_id"`
	Name       string     `bun:"name"`
	KeyHash    []byte     `bun:"key_hash"`
	Prefix     string     `bun:"prefix"`
	CreatedAt  time.Time  `bun:"created_at"`
	LastUsedAt *time.Time `bun:"last_used_at"`
	Disabled   bool       `bun:"disabled"`
	Scope      string     `bun:"scope"`

	TrainerID       *int64     `bun:"trainer_id"`
	OwnTraineesOnly bool       `bun:"own_trainees_only"`
	ExpiresAt       *time.Time `bun:"expires_at"`
	RevokedAt       *time.Time `bun:"revoked_at"`
	CreatedByType   *string    `bun:"created_by_type"`
	CreatedByID     *int64     `bun:"created_by_id"`

	// Read by keyQuery: the bound trainer's name, the name of the key or
	// trainer that made this key, and when the last of its rotated-out
	// secrets stops working.
	TrainerName       *string    `bun:"trainer_name,scanonly"`
	CreatedByName     *string    `bun:"created_by_name,scanonly"`
	PreviousExpiresAt *time.Time `bun:"previous_expires_at,scanonly"`
}

// apiKeySecretRow is a rotated-out secret of a key: its hash works until
// ExpiresAt.
type apiKeySecretRow struct {
	bun.BaseModel `bun:"table:api_key_secrets,alias:s"`

	ID        int64     `bun:"id,pk,autoincrement"`
	KeyID     int64     `bun:"key_id"`
	KeyHash   []byte    `bun:"key_hash"`
	ExpiresAt time.Time `bun:"expires_at"`
}

// toAPI is the key as the API shows it at now: its state, and the
// previous secret's expiry only while it still works.
func (k *apiKeyRow) toAPI(now time.Time) *api.APIKey {
	out := &api.APIKey{ID: k.ID, Name: k.Name, Prefix: k.Prefix, Scope: k.Scope,
		TrainerID: clonePtr(k.TrainerID), TrainerName: clonePtr(k.TrainerName), OwnTraineesOnly: k.OwnTraineesOnly,
		CreatedAt: k.CreatedAt.UTC(), LastUsedAt: utcPtr(k.LastUsedAt), ExpiresAt: utcPtr(k.ExpiresAt), RevokedAt: utcPtr(k.RevokedAt),
		State: api.KeyState(k.Disabled, k.RevokedAt, k.ExpiresAt, now)}
	if k.PreviousExpiresAt != nil && now.Before(*k.PreviousExpiresAt) && k.RevokedAt == nil {
		out.PreviousSecretExpiresAt = utcPtr(k.PreviousExpiresAt)
	}
	if k.CreatedByType != nil {
		out.CreatedBy = eventActor(k.CreatedByType, k.CreatedByID, k.CreatedByName)
	}
	return out
}

// utcPtr is a copy of *t in UTC, nil for nil.
func utcPtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}

func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

func dateToInt(d *api.Date) *int {
	if d == nil {
		return nil
	}
	n := d.Int()
	return &n
}

// webhookRow is a configured endpoint; Events is a comma-separated list.
type webhookRow struct {
	bun.BaseModel `bun:"table:webhooks,alias:w"`

	ID        int64     `bun:"id,pk,autoincrement"`
	CompanyID int64     `bun:"company_id"`
	URL       string    `bun:"url"`
	Events    string    `bun:"events"`
	Secret    string    `bun:"secret"`
	Enabled   bool      `bun:"enabled"`
	CreatedAt time.Time `bun:"created_at"`

	PreviousSecret *string    `bun:"previous_secret"`
	PreviousUntil  *time.Time `bun:"previous_secret_expires_at"`
	// The automation whose hidden endpoint this is (nil for the company's
	// own endpoints, the only ones listed).
	AutomationID *int64 `bun:"automation_id"`
	// DisabledReason says why the server disabled it (a 410 Gone, a
	// refused address); nil when it is enabled or a person disabled it.
	DisabledReason *string `bun:"disabled_reason"`
}

func (w *webhookRow) toAPI() *api.Webhook {
	state := api.WebhookActive
	if !w.Enabled {
		state = api.WebhookDisabled
	}
	return &api.Webhook{ID: w.ID, CompanyID: w.CompanyID, URL: api.RedactURL(w.URL), Events: strings.Split(w.Events, ","), State: state,
		DisabledReason: w.DisabledReason, CreatedAt: w.CreatedAt}
}

// webhookEventRow is one event of the outbox. Payload is the exact body
// every delivery of it sends.
type webhookEventRow struct {
	bun.BaseModel `bun:"table:webhook_events,alias:e"`

	ID        int64     `bun:"id,pk,autoincrement"`
	PublicID  string    `bun:"public_id"`
	CompanyID int64     `bun:"company_id"`
	TraineeID int64     `bun:"trainee_id"`
	Type      string    `bun:"type"`
	Payload   string    `bun:"payload"`
	CreatedAt time.Time `bun:"created_at"`
	// ActorType and ActorID are who made the change (api.Actor; ActorID
	// NULL for the system): both NULL on events written before they were
	// recorded. Never in Payload.
	ActorType *string `bun:"actor_type"`
	ActorID   *int64  `bun:"actor_id"`
	// Traceparent is the W3C traceparent of the span that wrote the event
	// (tracing on; NULL otherwise, and on events written before it was
	// kept): the dispatcher's delivery spans link to it. Never in Payload.
	Traceparent *string `bun:"traceparent"`
}

// webhookDeliveryRow is one event to send to one endpoint.
type webhookDeliveryRow struct {
	bun.BaseModel `bun:"table:webhook_deliveries,alias:d"`

	ID            int64      `bun:"id,pk,autoincrement"`
	EventID       int64      `bun:"event_id"`
	WebhookID     int64      `bun:"webhook_id"`
	Status        string     `bun:"status"`
	Attempts      int        `bun:"attempts"`
	NextAttemptAt time.Time  `bun:"next_attempt_at"`
	LockedUntil   *time.Time `bun:"locked_until"`
	Lease         *string    `bun:"lease"`
	CreatedAt     time.Time  `bun:"created_at"`
	UpdatedAt     time.Time  `bun:"updated_at"`
}

// webhookAttemptRow is one HTTP attempt of a delivery.
type webhookAttemptRow struct {
	bun.BaseModel `bun:"table:webhook_attempts,alias:a"`

	ID         int64     `bun:"id,pk,autoincrement"`
	DeliveryID int64     `bun:"delivery_id"`
	Attempt    int       `bun:"attempt"`
	StartedAt  time.Time `bun:"started_at"`
	StatusCode *int      `bun:"status_code"`
	LatencyUS  int64     `bun:"latency_us"`
	Error      *string   `bun:"error"`
	Response   *string   `bun:"response"`
}
