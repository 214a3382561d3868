package bulkimport

import (
	"context"
	"fmt"
	"time"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/client"
)

// Erased people stay erased (issue 38): create -f and apply -f skip the
// rows of people erased from the company, unless --allow-erased. The
// plans and dry runs ask the server first (POST /trainees/erased-check);
// the creates are sent with Traineed-Refuse-Erased, so that a run gives
// the verdict its dry run gave even for an erase made in between.

// StatusErased is the record of a row skipped because its e-mail or
// phone number is that of a trainee erased from the company: not sent, or
// sent and refused with 409 1038. It is not a failure.
const StatusErased = "erased"

// ActionErased is a plan's step for such a row.
const ActionErased = "erased"

// ErasedAPI is what the plans need to tell the erased rows before
// sending anything.
type ErasedAPI interface {
	// ErasedMatches says which of people name a trainee erased from the
	// company (by index).
	ErasedMatches(ctx context.Context, people []api.ErasedProbe) ([]api.ErasedMatch, error)
}

// ErasedMatches asks the server (POST /trainees/erased-check).
func (c ClientAPI) ErasedMatches(ctx context.Context, people []api.ErasedProbe) ([]api.ErasedMatch, error) {
	return c.Lookup.ErasedMatches(ctx, people)
}

// findErased asks which rows name an erased trainee: their matches by row.
func findErased(ctx context.Context, a ErasedAPI, rows []*Row) (map[*Row]api.ErasedMatch, error) {
	out := map[*Row]api.ErasedMatch{}
	if len(rows) == 0 {
		return out, nil
	}
	people := make([]api.ErasedProbe, len(rows))
	for i, r := range rows {
		people[i] = api.ErasedProbe{Email: r.Req.Email, PhoneNumber: r.Req.PhoneNumber}
		if people[i].Email == "" {
			people[i].Email = r.Email
		}
	}
	ms, err := a.ErasedMatches(ctx, people)
	if err != nil {
		return nil, fmt.Errorf("ask the server which rows name erased people: %w", err)
	}
	for _, m := range ms {
		if m.Index >= 0 && m.Index < len(rows) {
			out[rows[m.Index]] = m
		}
	}
	return out, nil
}

// MarkErased turns the plan's creates whose row names an erased trainee
// into ActionErased steps (not sent), counted in Erased; with allow
// (--allow-erased) they stay creates, marked as bringing an erased person
// back (Reason, ErasedAt) and counted in ErasedAllowed.
func (p *Plan) MarkErased(ctx context.Context, a ErasedAPI, allow bool) error {
	var rows []*Row
	for _, s := range p.Steps {
		if s.Action == ActionCreate && s.row != nil {
			rows = append(rows, s.row)
		}
	}
	found, err := findErased(ctx, a, rows)
	if err != nil {
		return err
	}
	for i := range p.Steps {
		s := &p.Steps[i]
		m, ok := found[s.row]
		if s.Action != ActionCreate || s.row == nil || !ok {
			continue
		}
		at := m.ErasedAt.UTC()
		s.Field, s.Reason, s.ErasedAt = m.Field, api.ErasedReason(m.Field, at), &at
		if allow {
			p.ErasedAllowed++
			continue
		}
		s.Action = ActionErased
		p.Create--
		p.Erased++
	}
	return nil
}

// ErasedRow is a row of create -f that names an erased person: a run
// skips it, or, Allowed (--allow-erased), creates it again.
type ErasedRow struct {
	Row      int       `json:"row"`
	Email    string    `json:"email"`
	Field    string    `json:"field"`
	ErasedAt time.Time `json:"erasedAt"`
	Allowed  bool      `json:"allowed,omitempty"`
}

// Outcome is what the run does with the row, in words.
func (e ErasedRow) Outcome() string {
	if e.Allowed {
		return "created again (--allow-erased)"
	}
	return "skipped"
}

// MarkErased counts, among the rows c would send (or look up first), those
// that name an erased trainee: a run skips them, or with allow
// (--allow-erased) sends them, counted in ErasedAllowed.
func (c *Check) MarkErased(ctx context.Context, a ErasedAPI, rows []Row, j *Journal, allow bool) error {
	var todo []*Row
	for i := range rows {
		r := &rows[i]
		if !r.Valid() {
			continue
		}
		if j != nil {
			if e, _ := j.Entry(r.RequestID); e.State == StateCreated || e.Uncertain {
				continue // done, or the run looks it up first
			}
		}
		todo = append(todo, r)
	}
	found, err := findErased(ctx, a, todo)
	if err != nil {
		return err
	}
	for _, r := range todo {
		m, ok := found[r]
		if !ok {
			continue
		}
		c.ErasedRows = append(c.ErasedRows, ErasedRow{Row: r.Num, Email: r.Email, Field: m.Field, ErasedAt: m.ErasedAt.UTC(), Allowed: allow})
		if allow {
			c.ErasedAllowed++
			continue
		}
		c.ToSend--
		c.Erased++
	}
	return nil
}

// erasedRecord is the record of a row skipped as erased.
func erasedRecord(row int, rid, email, field string, at time.Time) Record {
	code := api.CodeErased
	return Record{Row: row, RequestID: rid, Email: email, Status: StatusErased, ErrorCode: &code, Field: field,
		Message: api.ErasedReason(field, at)}
}

// refusedErased settles a create refused with 409 1038: the row is
// skipped, and the journal says so (a later run with --allow-erased sends
// it).
func (r *runner) refusedErased(row *Row, rec Record, e *client.ErasedError) (Record, error) {
	if err := r.o.Journal.Failed(row.RequestID, row.Num, e.Status, api.CodeErased, e.Message, false); err != nil {
		return rec, err
	}
	out := erasedRecord(row.Num, row.RequestID, row.Email, e.Field, e.ErasedAt)
	out.PasswordGenerated = rec.PasswordGenerated
	return out, nil
}
