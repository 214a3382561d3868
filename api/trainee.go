package api

import (
	"encoding/json"
	"time"
)

// Trainee is the full trainee representation of contract section 2. Every
// field is always present in a response; unset ones are null.
//
// Each field's label tag is how people read it (the TUI's profile, which
// shows every field of Trainee in this order, identifiers last).
type Trainee struct {
	ID                  int64    `json:"id" label:"Trainee id"`
	UserID              int64    `json:"userId" label:"User id"`
	Name                string   `json:"name" label:"Name"`
	Email               string   `json:"email" label:"E-mail"`
	Username            string   `json:"username" label:"Username"`
	PhoneNumber         *string  `json:"phoneNumber" label:"Phone"`
	DateOfBirth         *Date    `json:"dateOfBirth" label:"Date of birth"`
	ExpirationDate      *Date    `json:"expirationDate" label:"Expiration date"`
	Enabled             bool     `json:"enabled" label:"Status"`
	CompanyID           int64    `json:"companyId" label:"Company id"`
	TrainerID           *int64   `json:"trainerId" label:"Trainer"`
	CreatedByType       string   `json:"createdByType" label:"Created by"`
	ForcePasswordChange bool     `json:"forcePasswordChange" label:"Must change password"`
	WeightUnit          string   `json:"weightUnit" label:"Weight unit"`
	Authorities         []string `json:"authorities" label:"Authorities"`
	LastTrained         *Date    `json:"lastTrained" label:"Last trained"`
}

// Authorities every trainee has.
var TraineeAuthorities = []string{"TRAINEE", "USER"}

// Values of createdByType.
const (
	CreatedByAdmin   = "ADMIN"
	CreatedByTrainer = "TRAINER"
	CreatedBySelf    = "SELF"
)

// Weight units.
const (
	UnitKG = "KG"
	UnitLB = "LB"
)

// TraineeEnvelope is the body of every single-trainee response.
type TraineeEnvelope struct {
	Timestamp int64    `json:"timestamp"`
	Trainee   *Trainee `json:"trainee"`
}

// PageInfo is the "page" object of a PagedModel.
type PageInfo struct {
	Size          int   `json:"size"`
	Number        int   `json:"number"`
	TotalElements int64 `json:"totalElements"`
	TotalPages    int   `json:"totalPages"`
	// TotalExact is false when TotalElements is only a lower bound: a
	// search counts its matches up to Search.CountLimit (see there).
	TotalExact bool `json:"totalExact"`
	// CursorPage is nextCursor and hasMore, as in every list.
	CursorPage
}

// UnmarshalJSON reads a page object; one without totalExact (from a
// server older than the bounded count) is exact.
func (p *PageInfo) UnmarshalJSON(b []byte) error {
	type plain PageInfo
	v := plain{TotalExact: true}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*p = PageInfo(v)
	return nil
}

// TraineePage is the body of a search (and of an automation's dry run):
// Spring Data's PagedModel.
type TraineePage struct {
	Timestamp int64      `json:"timestamp"`
	Content   []*Trainee `json:"content"`
	Page      PageInfo   `json:"page"`
}

func (p *TraineePage) Rows() []*Trainee   { return p.Content }
func (p *TraineePage) Paging() CursorPage { return p.Page.CursorPage }
func (p *TraineePage) Counts() PageInfo   { return p.Page }

// Search statuses.
const (
	StatusLive    = "live"
	StatusActive  = "active"
	StatusExpired = "expired"
	StatusDeleted = "deleted"
	StatusAll     = "all"
)

// Sort keys accepted by search.
const (
	SortID             = "id"
	SortName           = "name"
	SortEmail          = "email"
	SortExpirationDate = "expirationDate"
	SortLastTrained    = "lastTrained"
)

// Search is a validated search request.
type Search struct {
	Query  string // trimmed q, "" for all
	Digits string // q's digits when q looks like a phone number, else ""
	Status string
	Page   int
	Size   int
	Sort   string
	Desc   bool
	Today  Date // the company's today, for active/expired
	// The cockpit's filters (issue 28; 0 or the zero Date: unset): the
	// expirationDate from Today to Today+ExpiresWithin days; lastTrained
	// null or InactiveFor days or more before Today; created on
	// CreatedSince or later, in Zone (the company's time zone; nil: UTC).
	ExpiresWithin int
	InactiveFor   int
	CreatedSince  Date
	Zone          *time.Location
	// TrainerID, when set, keeps the trainees of that trainer only
	// (trainerId=, or the key's own trainer for a key limited to it).
	TrainerID *int64
	// Cursor, when set, replaces Page: the search reads the page after
	// the one that gave the cursor (see Cursor).
	Cursor *Cursor
}

// ExactTotalBound is how many matches a search always counts exactly:
// counting a million matches costs far more than reading a page of them.
const ExactTotalBound = 10000

// CountLimit is how far a search counts its matches: ExactTotalBound, or
// up to the end of the requested page when that is further, plus one. A
// total below it is exact; a total equal to it is a lower bound, reported
// with totalExact false, and then totalPages is at least Page+2, so a
// client that follows totalPages still reads on.
func (s Search) CountLimit() int64 {
	return max(ExactTotalBound, s.Offset()+int64(s.Size)) + 1
}

// PageInfo describes the page of this search given total from the store
// (at most CountLimit).
func (s Search) PageInfo(total int64) PageInfo {
	pi := NewPageInfo(int(s.Offset()/int64(s.Size)), s.Size, total)
	pi.TotalExact = total < s.CountLimit()
	return pi
}
