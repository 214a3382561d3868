package bulkimport

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/traineed/traineed/api"
)

// How apply -f matches a row to a trainee of the company.
const (
	MatchEmail = "email"
	MatchPhone = "phone"
)

// Actions of a plan's steps.
const (
	ActionCreate    = "create"
	ActionUpdate    = "update"
	ActionRestore   = "restore" // a deleted trainee that reappears (with any change)
	ActionUnchanged = "unchanged"
	ActionRefused   = "refused"
	ActionDelete    = "delete" // --prune: a trainee absent from the input
)

// PlanOptions say how to compare an input with the company.
type PlanOptions struct {
	Match     string // MatchEmail (default) or MatchPhone
	NoRestore bool   // refuse the rows of deleted trainees instead of restoring them
	Prune     bool   // delete the live trainees no row matches
	// GeneratePasswords: a new trainee without a password gets a
	// generated one (else its row is refused).
	GeneratePasswords bool
}

// Change is one field of an update: its value before and after.
type Change struct {
	Field string `json:"field"`
	Old   any    `json:"old"`
	New   any    `json:"new"`
}

// Step is one thing a plan does (or refuses to do).
type Step struct {
	Action string `json:"action"`
	// Row is the input's row (0 for a delete, which no row asks for).
	Row       int      `json:"row,omitempty"`
	Email     string   `json:"email"`
	Name      string   `json:"name,omitempty"`
	TraineeID *int64   `json:"traineeId"`
	Changes   []Change `json:"changes,omitempty"`
	// ErrorCode, Field and Reason say why a row is refused.
	ErrorCode *int   `json:"errorCode,omitempty"`
	Field     string `json:"field,omitempty"`
	Reason    string `json:"reason,omitempty"`
	// ErasedAt is when the person of an ActionErased step, or of a create
	// that brings an erased person back (--allow-erased), was erased.
	ErasedAt *time.Time `json:"erasedAt,omitempty"`

	row    *Row
	patch  api.TraineePatch // update and restore: the body sent
	before *api.Trainee     // update, restore, delete: the trainee as read
}

// Plan is what apply -f does: the steps that change something (deletes
// first, then the rows in input order) and the count of each action.
// Unchanged rows are counted, not listed.
type Plan struct {
	Rows      int    `json:"rows"`
	Match     string `json:"match"`
	Create    int    `json:"create"`
	Update    int    `json:"update"`
	Restore   int    `json:"restore"`
	Delete    int    `json:"delete"`
	Unchanged int    `json:"unchanged"`
	Refused   int    `json:"refused"`
	// Erased counts the rows skipped because they name a trainee erased
	// from the company (MarkErased).
	Erased int `json:"erased"`
	// ErasedAllowed counts the creates (in Create too) that bring an erased
	// person back, under --allow-erased.
	ErasedAllowed int `json:"erasedAllowed,omitempty"`
	// PruneSkipped says why --prune deletes nothing although asked to.
	PruneSkipped string `json:"pruneSkipped,omitempty"`
	Steps        []Step `json:"steps"`
}

// Changes reports whether the plan changes anything.
func (p *Plan) Changes() bool { return p.Create+p.Update+p.Restore+p.Delete > 0 }

// Index holds the company's trainees by e-mail and phone number, deleted
// ones included.
type Index struct {
	all     []*api.Trainee
	byEmail map[string]*api.Trainee
	byPhone map[string]*api.Trainee
}

// NewIndex returns an empty index.
func NewIndex() *Index {
	return &Index{byEmail: map[string]*api.Trainee{}, byPhone: map[string]*api.Trainee{}}
}

// Add indexes trainees (a page of a search).
func (x *Index) Add(ts []*api.Trainee) {
	for _, t := range ts {
		x.all = append(x.all, t)
		x.byEmail[api.NormalizeEmail(t.Email)] = t
		if t.PhoneNumber != nil {
			x.byPhone[api.NormalizePhone(*t.PhoneNumber)] = t
		}
	}
}

// Len is the number of trainees indexed.
func (x *Index) Len() int { return len(x.all) }

// MakePlan compares the rows with the company's trainees.
func MakePlan(rows []Row, x *Index, o PlanOptions) *Plan {
	if o.Match == "" {
		o.Match = MatchEmail
	}
	p := &Plan{Rows: len(rows), Match: o.Match, Steps: []Step{}}
	matched := map[int64]bool{}
	var steps []Step
	unidentified := 0
	for i := range rows {
		row := &rows[i]
		// A row names its trainee by e-mail even when it is refused, so
		// that --prune never deletes a trainee whose row is in the input.
		if t := x.byEmail[row.Email]; t != nil {
			matched[t.ID] = true
		} else if row.Email == "" {
			unidentified++
		}
		s := planRow(row, x, o)
		if s.before != nil {
			matched[s.before.ID] = true
		}
		p.count(s.Action)
		if s.Action != ActionUnchanged {
			steps = append(steps, s)
		}
	}
	if o.Prune {
		if unidentified > 0 {
			p.PruneSkipped = fmt.Sprintf("%d rows have no e-mail address: the trainees they stand for cannot be told apart from the absent ones; fix them, then prune", unidentified)
			if unidentified == 1 {
				p.PruneSkipped = "1 row has no e-mail address: the trainee it stands for cannot be told apart from the absent ones; fix it, then prune"
			}
		} else {
			p.Steps = append(p.Steps, pruneSteps(x, matched)...)
			p.Delete = len(p.Steps)
		}
	}
	p.Steps = append(p.Steps, steps...)
	return p
}

func (p *Plan) count(action string) {
	switch action {
	case ActionCreate:
		p.Create++
	case ActionUpdate:
		p.Update++
	case ActionRestore:
		p.Restore++
	case ActionUnchanged:
		p.Unchanged++
	case ActionRefused:
		p.Refused++
	}
}

// pruneSteps are the deletes of the live trainees no row matched, by id.
func pruneSteps(x *Index, matched map[int64]bool) []Step {
	var out []Step
	for _, t := range x.all {
		if t.Enabled && !matched[t.ID] {
			id := t.ID
			out = append(out, Step{Action: ActionDelete, Email: t.Email, Name: t.Name, TraineeID: &id, before: t})
		}
	}
	slices.SortFunc(out, func(a, b Step) int { return int(*a.TraineeID - *b.TraineeID) })
	return out
}

// refuse makes s a refusal.
func refuse(s Step, code int, field, format string, args ...any) Step {
	s.Action = ActionRefused
	if code != 0 {
		s.ErrorCode = &code
	}
	s.Field, s.Reason = field, fmt.Sprintf(format, args...)
	s.patch, s.Changes = api.TraineePatch{}, nil
	return s
}

// planRow is the step of one row.
func planRow(row *Row, x *Index, o PlanOptions) Step {
	s := Step{Row: row.Num, Email: row.Email, Name: row.Req.Name, row: row}
	if !row.Valid() {
		rec := invalidRecord(row)
		code := 0
		if rec.ErrorCode != nil {
			code = *rec.ErrorCode
		}
		return refuse(s, code, rec.Field, "%s", rec.Message)
	}
	var t *api.Trainee
	switch o.Match {
	case MatchPhone:
		if row.Req.PhoneNumber == nil {
			return refuse(s, 0, "phoneNumber", "no phone number to match by (--match phone)")
		}
		t = x.byPhone[*row.Req.PhoneNumber]
	default:
		t = x.byEmail[row.Email]
	}
	if t == nil {
		return planCreate(s, row, x, o)
	}
	return planUpdate(s, row, t, x, o)
}

// planUpdate is the step of a row that matches trainee t: unchanged, an
// update, a restore, or refused.
func planUpdate(s Step, row *Row, t *api.Trainee, x *Index, o PlanOptions) Step {
	id := t.ID
	s.TraineeID, s.before = &id, t
	patch := row.Patch.Without(t)
	deleted := !t.Enabled
	if deleted && !(row.Patch.Enabled.Set && !row.Patch.Enabled.Value) {
		if o.NoRestore {
			return refuse(s, 0, "", "trainee %d is deleted; not restored (--no-restore)", id)
		}
		patch.Enabled = api.Val(true)
	}
	if patch.IsEmpty() {
		s.Action = ActionUnchanged
		return s
	}
	if other := taken(x, &patch, t.ID); other != nil {
		return refuse(s, other.code, other.field, "%s", other.msg)
	}
	s.Action, s.patch = ActionUpdate, patch
	if deleted && patch.Enabled.Set && patch.Enabled.Value {
		s.Action = ActionRestore
	}
	for _, name := range patch.Names() {
		f := api.PatchFieldNamed(name)
		_, _, v := f.Get(&patch)
		s.Changes = append(s.Changes, Change{Field: name, Old: f.Of(t), New: v})
	}
	return s
}

// planCreate is the step of a row that matches no trainee.
func planCreate(s Step, row *Row, x *Index, o PlanOptions) Step {
	if t := x.byEmail[row.Email]; t != nil {
		return refuse(s, api.CodeEmailTaken, "email", "e-mail address belongs to trainee %d, whose phone number differs", t.ID)
	}
	if row.Req.PhoneNumber != nil {
		if t := x.byPhone[*row.Req.PhoneNumber]; t != nil {
			return refuse(s, api.CodePhoneTaken, "phoneNumber", "phone number belongs to trainee %d (%s)", t.ID, api.EscapeText(t.Email))
		}
	}
	if row.Patch.Enabled.Set && !row.Patch.Enabled.Value {
		return refuse(s, 0, "enabled", "enabled is false: a new trainee is not created deleted")
	}
	if row.GeneratePassword && !o.GeneratePasswords {
		return refuse(s, api.CodeRequired, "password", "a new trainee needs a password: add a password column, or use --generate-passwords")
	}
	s.Action = ActionCreate
	return s
}

type conflict struct {
	code       int
	field, msg string
}

// taken finds a change that would give trainee id an e-mail address or
// phone number another trainee of the company holds.
func taken(x *Index, p *api.TraineePatch, id int64) *conflict {
	if p.Email.Set {
		if t := x.byEmail[p.Email.Value]; t != nil && t.ID != id {
			return &conflict{api.CodeEmailTaken, "email", fmt.Sprintf("e-mail address belongs to trainee %d", t.ID)}
		}
	}
	if p.PhoneNumber.Set && !p.PhoneNumber.Null {
		if t := x.byPhone[p.PhoneNumber.Value]; t != nil && t.ID != id {
			return &conflict{api.CodePhoneTaken, "phoneNumber", fmt.Sprintf("phone number belongs to trainee %d (%s)", t.ID, api.EscapeText(t.Email))}
		}
	}
	return nil
}

// Value is a field's value as the plan shows it: JSON (null for none).
func Value(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// Painter colours a marker; nil writes it plain.
type Painter func(action, s string) string

// WriteText writes the plan as a diff: - a trainee deleted (listed
// first), + a row created, ~ a row updated or restored with a line
// "field: old → new" per change, ! a row refused and why (or skipped:
// "! erased on 2026-11-28 (e-mail): row 4: ..."), = the count of
// rows left alone, then the counts.
func (p *Plan) WriteText(w io.Writer, paint Painter) {
	if paint == nil {
		paint = func(_, s string) string { return s }
	}
	for _, s := range p.Steps {
		switch s.Action {
		case ActionDelete:
			fmt.Fprintf(w, "%s trainee %d %s (%s): absent from the input\n", paint(s.Action, "-"), *s.TraineeID, esc(s.Email), esc(s.Name))
		case ActionCreate:
			again := ""
			if s.ErasedAt != nil {
				again = ": " + s.Reason + ", created again (--allow-erased)"
			}
			fmt.Fprintf(w, "%s row %d: %s (%s)%s\n", paint(s.Action, "+"), s.Row, esc(s.Email), esc(s.Name), again)
		case ActionUpdate, ActionRestore:
			what := ""
			if s.Action == ActionRestore {
				what = ", restored"
			}
			fmt.Fprintf(w, "%s row %d: %s (trainee %d%s)\n", paint(s.Action, "~"), s.Row, esc(s.Email), *s.TraineeID, what)
			for _, c := range s.Changes {
				fmt.Fprintf(w, "    %s: %s → %s\n", c.Field, esc(Value(c.Old)), esc(Value(c.New)))
			}
		case ActionErased:
			fmt.Fprintf(w, "%s %s: row %d: %s (%s)\n", paint(ActionRefused, "!"), s.Reason, s.Row, esc(s.Email), esc(s.Name))
		case ActionRefused:
			code := 0
			if s.ErrorCode != nil {
				code = *s.ErrorCode
			}
			fmt.Fprintf(w, "%s row %d: %s\n", paint(s.Action, "!"), s.Row, problem(code, s.Field, s.Reason))
		}
	}
	if p.Unchanged > 0 {
		fmt.Fprintf(w, "%s %d unchanged\n", paint(ActionUnchanged, "="), p.Unchanged)
	}
	if p.PruneSkipped != "" {
		fmt.Fprintf(w, "--prune deletes nothing: %s\n", p.PruneSkipped)
	}
	fmt.Fprintf(w, "Plan for %s: %s.\n", rowsText(p.Rows), p.counts())
}

// counts is the plan's counts in words.
func (p *Plan) counts() string {
	parts := []string{
		fmt.Sprintf("%d to create", p.Create),
		fmt.Sprintf("%d to update", p.Update),
		fmt.Sprintf("%d to restore", p.Restore),
	}
	if p.Delete > 0 {
		parts = append(parts, fmt.Sprintf("%d to delete", p.Delete))
	}
	parts = append(parts, fmt.Sprintf("%d unchanged", p.Unchanged), fmt.Sprintf("%d refused", p.Refused))
	if p.Erased > 0 {
		parts = append(parts, fmt.Sprintf("%d erased, skipped", p.Erased))
	}
	if p.ErasedAllowed > 0 {
		parts = append(parts, fmt.Sprintf("%d of the creates erased before", p.ErasedAllowed))
	}
	return strings.Join(parts, ", ")
}

func esc(s string) string { return api.EscapeText(s) }
