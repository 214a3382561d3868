package api

import (
	"fmt"
	"strings"
)

// Kinds of bulk action beyond the patch's own fields.
const (
	BulkPatch   = "update"  // set the fields of Patch
	BulkExtend  = "extend"  // move the expiration date by Days
	BulkDelete  = "delete"  // soft-delete (DELETE)
	BulkRestore = "restore" // restore (enabled: true)
)

// Skip reasons of a bulk action's plan.
const (
	SkipNoExpiration   = "no expiration date: never expires"
	SkipAlreadyDeleted = "already deleted"
	SkipNotDeleted     = "not deleted"
	SkipAlreadyAsAsked = "unchanged: already as asked"
)

// BulkAction is what a bulk action (traineectl update --ids, the TUI's
// : extend, trainer, delete…) does to every trainee. One rule serves the
// CLI and the TUI.
type BulkAction struct {
	Kind  string
	Patch TraineePatch // BulkPatch: the fields set on every trainee
	Days  int          // BulkExtend
}

// BulkChange is an action's change of one trainee, computed from its read.
type BulkChange struct {
	Patch   TraineePatch // what is sent (BulkDelete: nothing, a DELETE)
	Delete  bool         // send DELETE
	Restore bool         // BulkRestore: the patch restores the trainee
	Summary string       // "expirationDate 01-12-2026 → 31-12-2026"
	// Skip says why nothing is sent ("" when something is): the trainee
	// already is as the action wants it (Unchanged), or the action cannot
	// apply (a trainee without expiration date is not extended).
	Skip      string
	Unchanged bool // skipped because the trainee already is as asked
}

// Plan is the change the action makes to t on today. Extending moves
// the expiration date by Days from the later of the current date and
// today (an expired trainee is renewed from today); a trainee without an
// expiration date never expires and is skipped.
func (a BulkAction) Plan(t *Trainee, today Date) BulkChange {
	switch a.Kind {
	case BulkDelete:
		if !t.Enabled {
			return BulkChange{Skip: SkipAlreadyDeleted, Unchanged: true}
		}
		return BulkChange{Delete: true, Summary: "enabled true → false (deleted)"}
	case BulkRestore:
		if t.Enabled {
			return BulkChange{Skip: SkipNotDeleted, Unchanged: true}
		}
		return BulkChange{Patch: TraineePatch{Enabled: Val(true)}, Restore: true, Summary: "enabled false → true (restored)"}
	case BulkExtend:
		if t.ExpirationDate == nil {
			return BulkChange{Skip: SkipNoExpiration}
		}
		from := *t.ExpirationDate
		if from.Before(today) {
			from = today
		}
		to := from.AddDays(a.Days)
		return BulkChange{Patch: TraineePatch{ExpirationDate: Val(to)},
			Summary: "expirationDate " + t.ExpirationDate.String() + " → " + to.String()}
	}
	return patchChange(t, a.Patch)
}

// patchChange is the part of p that changes t: the fields whose value
// differs, described one by one.
func patchChange(t *Trainee, p TraineePatch) BulkChange {
	var (
		out   TraineePatch
		parts []string
	)
	for i := range TraineePatchFields {
		pf := &TraineePatchFields[i]
		set, null, v := pf.Get(&p)
		if !set {
			continue
		}
		var want any
		if !null {
			want = v
		}
		cur := pf.Of(t)
		if !pf.WriteOnly && fmt.Sprint(derefValue(cur)) == fmt.Sprint(derefValue(want)) {
			continue
		}
		pf.Set(&out, want)
		parts = append(parts, pf.Name+" "+valueText(cur)+" → "+valueText(want))
	}
	if len(parts) == 0 {
		return BulkChange{Skip: SkipAlreadyAsAsked, Unchanged: true}
	}
	return BulkChange{Patch: out, Summary: strings.Join(parts, ", ")}
}

// derefValue is the value a pointer points to (nil for a nil one).
func derefValue(v any) any {
	switch x := v.(type) {
	case *string:
		if x == nil {
			return nil
		}
		return *x
	case *Date:
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

// valueText is a value as a change's summary shows it.
func valueText(v any) string {
	v = derefValue(v)
	if v == nil {
		return "none"
	}
	return EscapeText(fmt.Sprint(v))
}
