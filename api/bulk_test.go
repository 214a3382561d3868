package api

import (
	"strings"
	"testing"
)

// One rule plans the CLI's and the TUI's bulk actions.
func TestBulkActionPlan(t *testing.T) {
	today, err := ParseDate("26-11-2026")
	if err != nil {
		t.Fatal(err)
	}
	past, future := today.AddDays(-10), today.AddDays(5)
	trainer, other := int64(3), int64(4)
	dated := &Trainee{ID: 1, Enabled: true, ExpirationDate: &future, TrainerID: &trainer}
	expired := &Trainee{ID: 2, Enabled: true, ExpirationDate: &past}
	never := &Trainee{ID: 3, Enabled: true}
	deleted := &Trainee{ID: 4}
	cases := []struct {
		name      string
		a         BulkAction
		t         *Trainee
		skip      string
		unchanged bool
		check     func(BulkChange) bool
	}{
		{"extend from the expiration", BulkAction{Kind: BulkExtend, Days: 30}, dated, "", false,
			func(c BulkChange) bool { return c.Patch.ExpirationDate.Value == future.AddDays(30) }},
		{"extend an expired one from today", BulkAction{Kind: BulkExtend, Days: 30}, expired, "", false,
			func(c BulkChange) bool { return c.Patch.ExpirationDate.Value == today.AddDays(30) }},
		{"extend without expiration: skipped", BulkAction{Kind: BulkExtend, Days: 30}, never, SkipNoExpiration, false, nil},
		{"set the trainer", BulkAction{Kind: BulkPatch, Patch: TraineePatch{TrainerID: Val(other)}}, dated, "", false,
			func(c BulkChange) bool { return c.Patch.TrainerID.Value == other }},
		{"the trainer it has: unchanged", BulkAction{Kind: BulkPatch, Patch: TraineePatch{TrainerID: Val(trainer)}}, dated, SkipAlreadyAsAsked, true, nil},
		{"expire on the date it has: unchanged", BulkAction{Kind: BulkPatch, Patch: TraineePatch{ExpirationDate: Val(future)}}, dated, SkipAlreadyAsAsked, true, nil},
		{"delete", BulkAction{Kind: BulkDelete}, dated, "", false, func(c BulkChange) bool { return c.Delete }},
		{"delete a deleted one: unchanged", BulkAction{Kind: BulkDelete}, deleted, SkipAlreadyDeleted, true, nil},
		{"restore", BulkAction{Kind: BulkRestore}, deleted, "", false,
			func(c BulkChange) bool { return c.Restore && c.Patch.Enabled.Value }},
		{"restore an enabled one: unchanged", BulkAction{Kind: BulkRestore}, dated, SkipNotDeleted, true, nil},
	}
	for _, c := range cases {
		got := c.a.Plan(c.t, today)
		if got.Skip != c.skip || got.Unchanged != c.unchanged {
			t.Errorf("%s: skip %q unchanged %v, want %q %v", c.name, got.Skip, got.Unchanged, c.skip, c.unchanged)
		}
		if c.check != nil && !c.check(got) {
			t.Errorf("%s: wrong change %+v", c.name, got)
		}
		if c.skip == "" && got.Summary == "" {
			t.Errorf("%s: no summary", c.name)
		}
	}
}

// An extension is written in days, weeks, calendar months or years; a
// month keeps the day in its month (31-01 + 1 month is the last of
// February); anything else is refused with the forms.
func TestParseExtension(t *testing.T) {
	from := &Trainee{ExpirationDate: &Date{2027, 1, 31}, Enabled: true}
	today := Date{2026, 11, 28}
	for in, want := range map[string]string{
		"30d": "02-03-2027", "30": "02-03-2027", " 6W ": "14-03-2027", "1m": "28-02-2027", "3m": "30-04-2027",
		"13m": "29-02-2028", "1y": "31-01-2028", "2Y": "31-01-2029",
	} {
		a, err := ParseExtension(in)
		if err != nil {
			t.Errorf("%q: %v", in, err)
			continue
		}
		if got := a.Plan(from, today).Patch.ExpirationDate.Value.String(); got != want {
			t.Errorf("%q from 31-01-2027: %s, want %s", in, got, want)
		}
	}
	for _, bad := range []string{"", "0d", "-3m", "3x", "m", "1.5m", "40000d", "101y"} {
		if _, err := ParseExtension(bad); err == nil || !strings.Contains(err.Error(), "30d, 6w, 3m or 1y") {
			t.Errorf("%q: %v", bad, err)
		}
	}
	for in, want := range map[string]string{"1d": "1 day", "6w": "42 days", "1m": "1 month", "3m": "3 months", "1y": "1 year", "24m": "2 years"} {
		if a, _ := ParseExtension(in); a.ExtensionText() != want {
			t.Errorf("%q says %q, want %q", in, a.ExtensionText(), want)
		}
	}
}
