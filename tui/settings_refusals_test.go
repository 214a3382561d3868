package tui

import (
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/tui/pages/settings"
)

// A key that is not an admin key sees why the keys are not shown, reads
// the trainers and the company, and changes nothing (no key offers a
// change); the dashboard's S says the page is read-only for it.
func TestSettingsOfANonAdminKey(t *testing.T) {
	d, f := settingsDriver(t, &api.CurrentKey{ID: 3, Name: "maya-phone", Scope: api.KeyScopeFull, CompanyName: "Demo Fitness"})
	expectWrapped(t, d, "Keys are for admin keys.", "This key, maya-phone (full), cannot see or change the company's keys: "+
		"an admin key of the company can", "It can read the trainers (2) and the company (3) here; an admin key changes them.")
	d.expectNot(t, "crm-export", "NAME", "may not")
	checkFits(t, d, 80, 24, "keys of a full key")
	for _, k := range []string{"n", "r", "d", "e", "2", "n", "r", "d", "u", "3", "e"} {
		d.press(k)
		d.expectNot(t, "New", "Edit", "Deactivate", "Move", "╭")
	}
	if len(f.changes()) != 0 {
		t.Fatalf("sent %v", f.changes())
	}
	d.expect(t, "[Company]", "Demo Fitness", "Europe/London")
	expectWrapped(t, d, "An admin key edits the name and the time zone.")
	d.expectNot(t, "e edit")
	d.press("2", "down")
	d.expect(t, "[Trainers]", "4 trainers", "Tomás Rivera", "18", "Read-only: an admin key adds, moves and deactivates trainers.")
	d.expectNot(t, "n new", "r reassign")
	checkFits(t, d, 80, 24, "trainers of a full key")
	if d.m.settings.Cursor[settings.SectionTrainers] != 1 {
		t.Errorf("the trainers' cursor is at %d", d.m.settings.Cursor[settings.SectionTrainers])
	}
	d.press("H", "?")
	d.expect(t, "settings (read-only)")
}

// Every refusal of the server shows in the status line in the page's
// words: not an admin key (the page then explains), limited to its
// trainer's trainees, read-only, the last admin key, a trainer who still
// has trainees (the picker opens), a key revoked already.
func TestSettingsRefusals(t *testing.T) {
	s := newServer(t)
	f := newAdminFake(s.client(s.Key))
	f.failNext("Keys", errNotAdmin)
	d := newDriver(t, f, Options{NoColor: true, Start: "settings"}) // the key's scope not known
	d.send(tea.WindowSizeMsg{Width: 100, Height: 30})
	expectWrapped(t, d, "✗ This API key is not an admin key: the company's keys, and changes to its trainers and settings, need one (403 1029).",
		"Keys are for admin keys.")
	d.expectNot(t, "crm-export")

	d, f = settingsDriver(t, adminKey)
	d.send(tea.WindowSizeMsg{Width: 160, Height: 30})
	for _, c := range []struct {
		method string
		err    error
		keys   []string
		want   string
	}{
		{"CreateKey", errOwnTrainees, []string{"n", "x", "ctrl+s"}, "✗ This API key acts for its trainer's trainees only: this reaches beyond them (403 1030)."},
		// The form stays open on a refusal: esc closes it.
		{"RotateKey", errReadOnly, []string{"esc", "g", "r", "y"}, "✗ This API key is read-only: changes need a full key (403 1014)."},
		{"RevokeKey", errLastAdmin, []string{"g", "d", "d", "e", "m", "o", "enter"},
			"✗ Key demo is not revoked: it is the company's last enabled admin key without an expiry, and a company keeps one (409 1032). Create another first."},
		{"RotateKey", errAlreadyRevoked, []string{"down", "r", "y"}, "✗ Key crm-export is revoked already: create a new key instead (409 1036)."},
	} {
		f.failNext(c.method, c.err)
		d.press(c.keys...)
		d.expect(t, c.want)
		d.expectNot(t, "has a new secret")
	}
	// A count read before a colleague gave the trainer trainees: the 409
	// opens the hand-over.
	zero := 0
	f.trainer(4).Active, f.trainer(4).Trainees = true, &zero
	d.press("2", "ctrl+r", "G", "d")
	d.expect(t, "Deactivate Leo Park?")
	f.failNext("DeactivateTrainer", errHasTrainees)
	d.press("y")
	d.expect(t, "✗ Leo Park still has trainees: pick who takes them over (409 1033).", "Leo Park has trainees: who takes them over?")
	d.press("enter", "y")
	d.expect(t, "✓ Deactivated Leo Park: moved 0 trainees to Maya Brooks.")
	// A key bound to the trainer is the company's last admin key: the
	// trainer stays active (said whole at 80 columns).
	d.send(tea.WindowSizeMsg{Width: 80, Height: 24})
	d.press("2", "g", "d", "enter")
	f.failNext("DeactivateTrainer", errLastAdmin)
	d.press("y")
	expectWrapped(t, d, "✗ Maya Brooks stays active: their key is the company's last enabled admin key without an expiry, and a company keeps one (409 1032). Create another first.")
	checkFits(t, d, 80, 24, "1032 on a deactivation")
}
