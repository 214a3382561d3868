package api

import (
	"context"
	"time"
)

// Principal is who an authenticated request acts for: one company, and
// within it, for a key bound to a trainer, that trainer.
type Principal struct {
	CompanyID int64
	KeyID     int64
	Scope     string         // KeyScopeAdmin, KeyScopeFull or KeyScopeRead
	Location  *time.Location // the company's time zone
	// TrainerID is the trainer the key acts as (nil: the company's key).
	TrainerID *int64
	// OwnTraineesOnly limits the key to TrainerID's trainees: any other
	// trainee is answered as another company's.
	OwnTraineesOnly bool
}

// OwnTrainer is the trainer whose trainees alone the key may reach, and
// whether it is so limited.
func (p *Principal) OwnTrainer() (int64, bool) {
	if p.OwnTraineesOnly && p.TrainerID != nil {
		return *p.TrainerID, true
	}
	return 0, false
}

// Today returns the company's calendar day at now.
func (p *Principal) Today(now time.Time) Date { return Today(now, p.Location) }

// TraineeStore is what the HTTP handler needs from storage. Every method
// but Authenticate takes the caller's company id and never sees another
// company's rows: an id of another company is ErrNotFound.
type TraineeStore interface {
	// Authenticate finds the enabled key whose SHA-256 is hash; any other
	// case is ErrUnauthorized. It is the only unscoped lookup.
	Authenticate(ctx context.Context, hash [32]byte) (*Principal, error)

	// CreateTrainee stores a new trainee. A duplicate e-mail or phone is a
	// *ConflictError; a trainer outside the company a *ValidationError 1010.
	// Without TrainerID the company's first trainer (lowest id) is assigned.
	CreateTrainee(ctx context.Context, companyID int64, t NewTrainee) (*Trainee, error)

	// IsTrainer reports whether trainerID is a trainer of the company.
	IsTrainer(ctx context.Context, companyID, trainerID int64) (bool, error)

	// Trainee returns one trainee, soft-deleted ones included.
	Trainee(ctx context.Context, companyID, id int64) (*Trainee, error)

	// UpdateTrainee applies p in one transaction and returns the result.
	// Enabled false soft-deletes, true restores. Errors as CreateTrainee.
	UpdateTrainee(ctx context.Context, companyID, id int64, p TraineePatch) (*Trainee, error)

	// TraineeVersion is Trainee with the trainee's version (its ETag).
	TraineeVersion(ctx context.Context, companyID, id int64) (*Trainee, int64, error)

	// UpdateTraineeIf is UpdateTrainee that applies p only when m (nil:
	// always) matches the trainee's version, checked under the row's lock
	// in the same transaction; otherwise ErrPreconditionFailed and nothing
	// changes. It returns the version after the change.
	UpdateTraineeIf(ctx context.Context, companyID, id int64, m *IfMatch, p TraineePatch) (*Trainee, int64, error)

	// TraineeStats counts the company's trainees on today as TraineeStats
	// says, of one trainer when trainerID is set; loc is the company's
	// time zone (createdSince's days).
	TraineeStats(ctx context.Context, companyID int64, trainerID *int64, today Date, loc *time.Location) (*TraineeStats, error)

	// SearchTrainees returns one page and the total count.
	SearchTrainees(ctx context.Context, companyID int64, s Search) ([]*Trainee, int64, error)

	// Trainers lists the company's trainers, lowest id first.
	Trainers(ctx context.Context, companyID int64) ([]*Trainer, error)

	// Ping checks the database for /readyz.
	Ping(ctx context.Context) error
}

// KeyTraineeReader is what a store may add to TraineeStore for GET
// /trainees/{id}: the key lookup and the trainee read in one round trip.
type KeyTraineeReader interface {
	// AuthenticateTrainee is Authenticate and then Trainee of the key's
	// company in one statement: found is false when either is missing
	// (the caller asks the two questions one by one to tell which), and
	// a key found is marked used as by Authenticate.
	AuthenticateTrainee(ctx context.Context, hash [32]byte, id int64) (p *Principal, t *Trainee, found bool, err error)
}

// ErrorClassifier is a store that tells which of its errors mean that
// the database connection was lost: ClassifyError returns err marked
// ErrUnavailable then, else err unchanged. The handler passes every
// handler's error through it, so that no store method can leak a lost
// connection as a fault, whichever path its error took.
type ErrorClassifier interface {
	ClassifyError(err error) error
}

// TraineeVersionCreator is TraineeStore.CreateTrainee with the new
// trainee's version, for the create's ETag (a store without it answers
// a create without one).
type TraineeVersionCreator interface {
	CreateTraineeVersion(ctx context.Context, companyID int64, t NewTrainee) (*Trainee, int64, error)
}

// KeyTraineeVersionReader is KeyTraineeReader with the trainee's version
// (its ETag): what GET /trainees/{id} uses when the store has it.
type KeyTraineeVersionReader interface {
	AuthenticateTraineeVersion(ctx context.Context, hash [32]byte, id int64) (p *Principal, t *Trainee, version int64, found bool, err error)
}

// Company is a tenant.
type Company struct {
	ID        int64     `json:"id"`
	Name      string    `json:"name"`
	TimeZone  string    `json:"timeZone"`
	CreatedAt time.Time `json:"createdAt"`
}

// Trainer is a trainer of a company.
type Trainer struct {
	ID        int64     `json:"id"`
	UserID    int64     `json:"userId"`
	CompanyID int64     `json:"companyId"`
	Name      string    `json:"name"`
	Email     string    `json:"email"`
	Active    bool      `json:"active"`
	CreatedAt time.Time `json:"createdAt"`
}

// TrainerRef names a trainer where something else is shown: a trainee's
// export.
type TrainerRef struct {
	ID    int64  `json:"id"`
	Name  string `json:"name"`
	Email string `json:"email"`
}

// TrainerSummary is a trainer as the public API shows it: what a client
// needs to show a trainee's trainer by name, whether the trainer is
// active (a deactivated one takes no trainees), and how many live
// trainees the trainer has (null where the key may not count them: a key
// limited to its own trainees sees no other trainer's count).
type TrainerSummary struct {
	ID        int64     `json:"id"`
	Name      string    `json:"name"`
	Email     string    `json:"email"`
	Active    bool      `json:"active"`
	Trainees  *int      `json:"traineeCount"`
	CreatedAt time.Time `json:"createdAt"`
}

// TrainerList is the body of GET /public-api/trainers: the company's
// trainers, lowest id first.
type TrainerList struct {
	Timestamp int64            `json:"timestamp"`
	Trainers  []TrainerSummary `json:"trainers"`
}

// Key states.
const (
	KeyActive   = "active"
	KeyDisabled = "disabled"
)

// APIKey is an API key as GET /keys and `traineed key list` show it; the
// key itself is never stored, only its SHA-256 and its first 8
// characters. TrainerID binds it to a trainer it acts as (TrainerName is
// that trainer's name now); CreatedBy is who made it (the system for the
// operator's commands); PreviousSecretExpiresAt, after a rotation, is when
// the previous secret stops working.
type APIKey struct {
	ID                      int64      `json:"id"`
	Name                    string     `json:"name"`
	Prefix                  string     `json:"prefix"`
	Scope                   string     `json:"scope"`
	TrainerID               *int64     `json:"trainerId"`
	TrainerName             *string    `json:"trainerName"`
	OwnTraineesOnly         bool       `json:"ownTraineesOnly"`
	CreatedAt               time.Time  `json:"createdAt"`
	CreatedBy               *Actor     `json:"createdBy"`
	LastUsedAt              *time.Time `json:"lastUsedAt"`
	ExpiresAt               *time.Time `json:"expiresAt"`
	PreviousSecretExpiresAt *time.Time `json:"previousSecretExpiresAt"`
	RevokedAt               *time.Time `json:"revokedAt"`
	State                   string     `json:"state"`
}
