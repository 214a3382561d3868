package api

import (
	"fmt"
	"strconv"
	"strings"
)

// Kinds of bulk action beyond the patch's own fields.
const (
	BulkPatch   = "update"  // set the fields of Patch
	BulkExtend  = "extend"  // move the expiration date by Days or Months
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
	Days  int          // BulkExtend: by days (weeks are 7)
	// Months is BulkExtend by calendar months instead (years are 12):
	// Date.AddMonths, so 31-01 + 1 month is the month's last day.
	Months int
}

// ParseExtension reads the length of an extension as people write it: 30d
// (or 30), 6w, 3m (calendar months), 1y; at most MaxFilterDays days, or as
// many months or years as that many days hold. The error says the forms.
func ParseExtension(s string) (BulkAction, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	unit := byte('d')
	if t != "" && strings.ContainsRune("dwmy", rune(t[len(t)-1])) {
		unit, t = t[len(t)-1], t[:len(t)-1]
	}
	n, err := strconv.Atoi(t)
	limit := map[byte]int{'d': MaxFilterDays, 'w': MaxFilterDays / 7, 'm': MaxFilterDays / 31, 'y': MaxFilterDays / 366}[unit]
	if err != nil || n < 1 || n > limit {
		return BulkAction{}, fmt.Errorf("%q is not a length: give days, weeks, months or years, such as 30d, 6w, 3m or 1y", s)
	}
	a := BulkAction{Kind: BulkExtend}
	switch unit {
	case 'w':
		a.Days = 7 * n
	case 'm':
		a.Months = n
	case 'y':
		a.Months = 12 * n
	default:
		a.Days = n
	}
	return a, nil
}

// ExtensionText is an extension's length as people read it: "30 days",
// "3 months", "1 year".
func (a BulkAction) ExtensionText() string {
	switch {
	case a.Months > 0 && a.Months%12 == 0:
		return plural(a.Months/12, "1 year", fmt.Sprintf("%d years", a.Months/12))
	case a.Months > 0:
		return plural(a.Months, "1 month", fmt.Sprintf("%d months", a.Months))
	}
	return plural(a.Days, "1 day", fmt.Sprintf("%d days", a.Days))
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
		if a.Months > 0 {
			to = from.AddMonths(a.Months)
		}
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
