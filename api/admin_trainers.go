package api

import (
	"encoding/json"
	"net/url"
	"strings"
)

// TrainerEnvelope is the body of every single-trainer answer. A
// deactivation (PATCH with active false) also says what it did: Moved, the
// trainees handed to reassignTo, and DisabledKeys, the keys bound to the
// trainer that it disabled.
type TrainerEnvelope struct {
	Timestamp    int64           `json:"timestamp"`
	Trainer      *TrainerSummary `json:"trainer"`
	Moved        *int            `json:"moved,omitempty"`
	DisabledKeys []int64         `json:"disabledKeys,omitempty"`
}

// NewTrainer is a trainer to create: POST /public-api/trainers.
type NewTrainer struct {
	Name  string `json:"name"`
	Email string `json:"email"`
}

// TrainerPatch is a change to a trainer (PATCH /public-api/trainers/{id});
// nil fields are left alone. Active false deactivates: refused (409 1033)
// while the trainer has trainees, unless ReassignTo names who takes them
// over, in the same transaction.
type TrainerPatch struct {
	Name       *string `json:"name,omitempty"`
	Email      *string `json:"email,omitempty"`
	Active     *bool   `json:"active,omitempty"`
	ReassignTo *int64  `json:"reassignTo,omitempty"`
}

// Reassignment is the body of POST /public-api/trainers/{id}/reassign, and
// its answer: every trainee of the trainer (soft-deleted ones included)
// goes to To, in one transaction, one trainee.updated event each.
type Reassignment struct {
	To int64 `json:"to"`
}

// ReassignResult is the answer of a reassignment.
type ReassignResult struct {
	Timestamp int64           `json:"timestamp"`
	From      *TrainerSummary `json:"from"`
	To        *TrainerSummary `json:"to"`
	Moved     int             `json:"moved"`
}

// ParseTrainerList reads GET /public-api/trainers: counts=true asks for
// each trainer's live trainees (a pass over the company's trainees; a
// client that only names trainers leaves it out).
func ParseTrainerList(q url.Values) (counts bool, err error) {
	switch q.Get("counts") {
	case "", "false":
		return false, nil
	case "true":
		return true, nil
	}
	return false, Invalid(CodeInvalidParameter, "counts", "counts must be true or false")
}

// ParseNewTrainer reads POST /public-api/trainers: name and email, by the
// trainee's rules (1001, 1002, 1007, 1016).
func ParseNewTrainer(body []byte) (*NewTrainer, error) {
	m, err := object(body)
	if err != nil {
		return nil, err
	}
	f := &fields{m: m, v: &ValidationError{}, skip: map[string]bool{}}
	out := &NewTrainer{}
	if raw, ok := f.present("name", true, false); ok {
		f.trainerName(raw, &out.Name)
	}
	if raw, ok := f.present("email", true, false); ok {
		f.trainerEmail(raw, &out.Email)
	}
	return out, f.v.Err()
}

// ParseTrainerPatch reads PATCH /public-api/trainers/{id}.
func ParseTrainerPatch(body []byte) (*TrainerPatch, error) {
	m, err := object(body)
	if err != nil {
		return nil, err
	}
	f := &fields{m: m, v: &ValidationError{}, skip: map[string]bool{}}
	p := &TrainerPatch{}
	if raw, ok := f.present("name", false, false); ok {
		var s string
		if f.trainerName(raw, &s) {
			p.Name = &s
		}
	}
	if raw, ok := f.present("email", false, false); ok {
		var s string
		if f.trainerEmail(raw, &s) {
			p.Email = &s
		}
	}
	if raw, ok := f.present("active", false, false); ok {
		var b bool
		if f.boolean("active", raw, &b) {
			p.Active = &b
		}
	}
	if raw, ok := f.present("reassignTo", false, true); ok {
		var id int64
		if f.integer("reassignTo", raw, &id) {
			p.ReassignTo = &id
		}
	}
	if p.ReassignTo != nil && (p.Active == nil || *p.Active) {
		f.v.Add(CodeInvalidParameter, "reassignTo", "reassignTo goes with active: false (or POST /trainers/{id}/reassign moves the trainees alone)")
	}
	return p, f.v.Err()
}

// ParseReassignment reads POST /public-api/trainers/{id}/reassign.
func ParseReassignment(body []byte) (*Reassignment, error) {
	m, err := object(body)
	if err != nil {
		return nil, err
	}
	f := &fields{m: m, v: &ValidationError{}, skip: map[string]bool{}}
	out := &Reassignment{}
	if raw, ok := f.present("to", true, false); ok {
		f.integer("to", raw, &out.To)
	}
	return out, f.v.Err()
}

// trainerName and trainerEmail normalise and check a trainer's name and
// e-mail by the trainee's rules (checkName: a person's name, and
// checkEmail).
func (f *fields) trainerName(raw json.RawMessage, dst *string) bool {
	if !f.str("name", raw, dst) {
		return false
	}
	n := len(f.v.Errors)
	checkName(f.v, dst)
	return len(f.v.Errors) == n
}

// companyName normalises and checks a company's name: trimmed, 1 to 100
// characters of text (ControlChar's rule only: it names no person, so the
// rule of a person's invisible characters is not its).
func (f *fields) companyName(raw json.RawMessage, dst *string) bool {
	if !f.str("name", raw, dst) {
		return false
	}
	*dst = strings.TrimSpace(*dst)
	if n := len([]rune(*dst)); n == 0 || n > MaxNameLength {
		f.v.Add(CodeTextLength, "name", "name must be 1 to %d characters", MaxNameLength)
		return false
	}
	return true
}

func (f *fields) trainerEmail(raw json.RawMessage, dst *string) bool {
	if !f.str("email", raw, dst) {
		return false
	}
	n := len(f.v.Errors)
	checkEmail(f.v, dst)
	return len(f.v.Errors) == n
}
