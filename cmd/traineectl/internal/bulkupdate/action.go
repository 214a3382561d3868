// Package bulkupdate is traineectl's action over many trainees (update
// --ids / --from-search, delete and restore with them): each trainee is
// read (its ETag), the action's change is computed from what was read,
// and sent with If-Match and an idempotency key derived from the action's
// id, several at a time, slowing down on 429 as the bulk import does. A
// journal (optional) makes a re-run resume: what was done is not sent
// again, what was sent without an answer is sent again unchanged (the
// server replays its answer), and what failed is tried again.
package bulkupdate

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"

	"github.com/traineed/traineed/api"
)

// Kinds of action beyond the patch's own fields.
const (
	KindPatch   = "update"  // set the fields of Patch
	KindExtend  = "extend"  // move the expiration date by Days
	KindDelete  = "delete"  // soft-delete (DELETE)
	KindRestore = "restore" // restore (enabled: true)
)

// Action is what a bulk run does to every trainee.
type Action struct {
	Kind  string
	Patch api.TraineePatch // KindPatch: the fields set on every trainee
	Days  int              // KindExtend
}

// Change is an action's change of one trainee, computed from its read.
type Change struct {
	Patch   api.TraineePatch // what is sent (KindDelete: nothing, a DELETE)
	Delete  bool             // send DELETE
	Summary string           // "expirationDate 01-12-2026 → 31-12-2026"
	// Skip says why nothing is sent ("" when something is): the trainee
	// already is as the action wants it, or the action cannot apply.
	Skip string
}

// Plan is the change the action makes to t on today. Extending moves
// the expiration date by Days from the later of the current date and
// today (an expired trainee is renewed from today); a trainee without an
// expiration date never expires and is skipped.
func (a Action) Plan(t *api.Trainee, today api.Date) Change {
	switch a.Kind {
	case KindDelete:
		if !t.Enabled {
			return Change{Skip: "already deleted"}
		}
		return Change{Delete: true, Summary: "enabled true → false (deleted)"}
	case KindRestore:
		if t.Enabled {
			return Change{Skip: "not deleted"}
		}
		return Change{Patch: api.TraineePatch{Enabled: api.Val(true)}, Summary: "enabled false → true (restored)"}
	case KindExtend:
		if t.ExpirationDate == nil {
			return Change{Skip: "no expiration date: never expires"}
		}
		from := *t.ExpirationDate
		if from.Before(today) {
			from = today
		}
		to := from.AddDays(a.Days)
		return Change{Patch: api.TraineePatch{ExpirationDate: api.Val(to)},
			Summary: "expirationDate " + t.ExpirationDate.String() + " → " + to.String()}
	}
	return patchChange(t, a.Patch)
}

// patchChange is the part of p that changes t: the fields whose value
// differs, described one by one.
func patchChange(t *api.Trainee, p api.TraineePatch) Change {
	var (
		out   api.TraineePatch
		parts []string
	)
	for i := range api.TraineePatchFields {
		pf := &api.TraineePatchFields[i]
		set, null, v := pf.Get(&p)
		if !set {
			continue
		}
		var want any
		if !null {
			want = v
		}
		cur := pf.Of(t)
		if !pf.WriteOnly && fmt.Sprint(deref(cur)) == fmt.Sprint(deref(want)) {
			continue
		}
		pf.Set(&out, want)
		parts = append(parts, pf.Name+" "+text(cur)+" → "+text(want))
	}
	if len(parts) == 0 {
		return Change{Skip: "unchanged: already as asked"}
	}
	return Change{Patch: out, Summary: strings.Join(parts, ", ")}
}

// deref is the value a pointer points to (nil for a nil one).
func deref(v any) any {
	switch x := v.(type) {
	case *string:
		if x == nil {
			return nil
		}
		return *x
	case *api.Date:
		if x == nil {
			return nil
		}
		return *x
	case *int64:
		if x == nil {
			return nil
		}
		return *x
	case *bool:
		if x == nil {
			return nil
		}
		return *x
	}
	return v
}

// text is a value as the summary shows it.
func text(v any) string {
	v = deref(v)
	if v == nil {
		return "none"
	}
	return api.EscapeText(fmt.Sprint(v))
}

// NewActionID is a new random action id.
func NewActionID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return "act-" + hex.EncodeToString(b[:])
}

// Key is the idempotency key of the attempt-th try of the action on
// trainee id: a re-run of the action sends the same key, so the server
// answers what it answered the first time instead of applying it again.
func Key(actionID string, id int64, attempt int) string {
	return actionID + ":" + strconv.FormatInt(id, 10) + ":" + strconv.Itoa(attempt)
}

// ValidActionID reports whether id can prefix an idempotency key: 1 to
// 200 printable ASCII characters.
func ValidActionID(id string) bool {
	return len(id) <= 200 && api.ValidIdempotencyKey(id)
}
