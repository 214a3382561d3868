package tui

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/client"
	"github.com/traineed/traineed/tui/internal/common"
)

// adminKey is the demo company's admin key as GET /keys/current shows it:
// key 1 of the fake.
var adminKey = &api.CurrentKey{ID: 1, Name: "demo", Scope: api.KeyScopeAdmin, CompanyName: "Demo Fitness"}

// settingsDriver opens the Settings page (S on the dashboard) over the
// fake's administration, with key in use, at 80x24.
func settingsDriver(t *testing.T, key *api.CurrentKey) (*driver, *adminFake) {
	t.Helper()
	s := newServer(t)
	f := newAdminFake(s.client(s.Key))
	d := newDriver(t, f, Options{NoColor: true, Start: "home", Key: key})
	d.send(tea.WindowSizeMsg{Width: 80, Height: 24})
	d.press("S")
	return d, f
}

// expectChanges fails unless the fake was asked for exactly these changes
// since the last call.
func expectChanges(t *testing.T, f *adminFake, seen *int, want ...string) {
	t.Helper()
	got := f.changes()[*seen:]
	*seen += len(got)
	if !slices.Equal(got, want) {
		t.Fatalf("changes %q, want %q", got, want)
	}
}

// expectWrapped fails unless the screen says each of parts, read as one
// text: its lines joined, a dialog's box and the wrapping gone (a long
// question, a status line on two lines).
func expectWrapped(t *testing.T, d *driver, parts ...string) {
	t.Helper()
	text := strings.Join(strings.Fields(strings.ReplaceAll(d.screen(), "│", " ")), " ")
	for _, p := range parts {
		if !strings.Contains(text, p) {
			t.Fatalf("the screen does not say %q:\n%s", p, d.screen())
		}
	}
}

// S on the dashboard and :settings open the page; esc goes back.
func TestSettingsOpensFromHomeAndTheCommandLine(t *testing.T) {
	d, _ := settingsDriver(t, adminKey)
	d.expect(t, "Settings", "[Keys]", "Trainers", "Company", "3 keys", "NAME", "SCOPE", "TRAINER", "LAST USED", "EXPIRES",
		"STATE", "* demo", "crm-export", "maya-phone", "Maya Brooks", "2027-01-01 00:00", "never", "* this TUI uses it")
	checkFits(t, d, 80, 24, "settings")
	d.press("esc")
	d.expect(t, "What needs attention")
	d.send(kp(":"))
	d.typeText("settings")
	d.press("enter")
	d.expect(t, "[Keys]", "crm-export")
	d.press("2")
	d.expect(t, "[Trainers]", "4 trainers", "TRAINEES", "Tomás Rivera", "18", "inactive")
	d.press("tab")
	d.expect(t, "[Company]", "Europe/London", "Demo Fitness")
	d.press("shift+tab", "shift+tab")
	d.expect(t, "[Keys]")
	d.press("?")
	d.expect(t, "new key", "rotate", "revoke", "previous section")
}

// n makes a key with a small form (the trainer by name, a last day); its
// secret shows once, saying it will not be shown again.
func TestSettingsCreatesAKey(t *testing.T) {
	d, f := settingsDriver(t, adminKey)
	seen := 0
	d.press("n")
	d.expect(t, "New API key", "Name", "Scope", "[full]", "Trainer", "Own trainees only", "Expires")
	d.press("ctrl+s")
	d.expect(t, "✗ Name is not right: fix it first. Nothing was sent.", "✗ 1007 name must be 1 to")
	d.typeText("sam-phone")
	d.press("tab", "right", "tab") // scope read
	d.typeText("maya")
	d.expect(t, "✓ Maya Brooks (#1)")
	d.press("tab", "space", "tab") // own trainees only
	d.typeText("31-12-2026")
	d.expect(t, "✓ works through 31-12-2026")
	checkFits(t, d, 80, 24, "the new key's form")
	d.press("ctrl+s")
	expectChanges(t, f, &seen, "CreateKey 11")
	d.expect(t, "Key sam-phone (read) was created. Its secret:", "pk_secretOfKey11", "Copy it now: it will not be shown again.",
		"✓ Created key sam-phone.")
	k := f.key(11)
	end := time.Date(2027, 1, 1, 0, 0, 0, 0, d.m.Zone()) // the last day ends
	if k.Scope != api.KeyScopeRead || k.TrainerID == nil || *k.TrainerID != 1 || !k.OwnTraineesOnly || k.ExpiresAt == nil || !k.ExpiresAt.Equal(end) {
		t.Errorf("the key made: %+v", k)
	}
	d.press("enter")
	d.expect(t, "4 keys", "sam-phone")
	d.expectNot(t, "pk_secretOfKey11")
	// esc leaves the form and sends nothing.
	d.press("n")
	d.typeText("x")
	d.press("esc")
	d.expect(t, "No key was created.")
	expectChanges(t, f, &seen)
}

// The new key's form holds the API's rules before it sends: a key limited
// to its trainer's trainees needs a trainer and is not an admin key; the
// trainer is one of the company's; the last day is not past.
func TestSettingsKeyFormChecksTheRules(t *testing.T) {
	d, f := settingsDriver(t, adminKey)
	d.send(tea.WindowSizeMsg{Width: 100, Height: 30})
	d.press("n")
	d.typeText("x")
	d.press("tab", "left", "tab", "tab", "space", "ctrl+s") // admin, own trainees only, no trainer
	d.expect(t, "ownTraineesOnly needs trainerId", "a key limited to its trainer's trainees", "✗ Scope is not right")
	d.press("tab")
	d.typeText("Nobody")
	d.expect(t, "no trainer is named Nobody")
	d.press("tab", "tab")
	d.typeText("01-01-2020")
	d.expect(t, "expiresAt must be in the future")
	// A word that is not a day is answered for an expiry: a future day.
	for range len("01-01-2020") {
		d.send(kp("backspace"))
	}
	d.typeText("soon")
	expectWrapped(t, d, `✗ 1005 "soon" is not a day: give the last day it works, dd-MM-yyyy or yyyy-MM-dd, such as 21-11-2027`)
	d.expectNot(t, "yesterday")
	if len(f.changes()) != 0 {
		t.Fatalf("sent %v", f.changes())
	}
}

// r rotates after a question: the new secret shows once, with until when
// the old one works.
func TestSettingsRotatesAKey(t *testing.T) {
	d, f := settingsDriver(t, adminKey)
	seen := 0
	d.press("down", "r")
	d.expect(t, "Rotate key crm-export?", "The old secret keeps working for 24")
	d.press("n")
	d.expect(t, "Not rotated.")
	expectChanges(t, f, &seen)
	d.press("r", "y")
	expectChanges(t, f, &seen, "RotateKey 2")
	d.expect(t, "Key crm-export has a new secret:", "pk_rotatedSecret2", "it will not be shown again",
		"The old secret keeps working until 2026-11-21 09:30, then is refused.",
		"✓ Rotated key crm-export: the old secret works until 2026-11-21 09:30.")
	d.expectNot(t, "This TUI goes on")
	d.press("enter")
	d.expect(t, "secret works until 2026-11-21 09:30")
	// The key the TUI uses: the notice says the TUI goes on with the old one.
	d.press("g", "r")
	d.expect(t, "This TUI uses this key")
	d.press("y")
	d.expect(t, "This TUI goes on with the old secret until then")
}

// d revokes after y, or, for the key the TUI uses, after its name is
// typed (trimmed, in any case); revoked keys leave the table.
func TestSettingsRevokesAKey(t *testing.T) {
	d, f := settingsDriver(t, adminKey)
	seen := 0
	d.press("down", "d")
	d.expect(t, "Revoke key crm-export?", "y revoke", "n keep")
	d.press("esc")
	d.expect(t, "Not revoked.")
	d.press("d", "y")
	expectChanges(t, f, &seen, "RevokeKey 2")
	d.expect(t, "✓ Revoked key crm-export: it is refused from now on.", "2 keys")
	d.expectNot(t, "crm-export ")
	d.press("g", "d")
	d.expect(t, "Revoke key demo, the key this TUI uses?", "Type its name to revoke it:")
	d.press("y")
	expectChanges(t, f, &seen)
	d.press("ctrl+u")
	d.typeText("dem")
	d.press("enter")
	d.expect(t, "That is not demo", "Revoke key demo")
	expectChanges(t, f, &seen)
	// Compared trimmed and in any case, as traineectl keys revoke does.
	d.press("ctrl+u")
	d.typeText("  DeMo ")
	d.press("enter")
	expectChanges(t, f, &seen, "RevokeKey 1")
	d.expect(t, "Revoked key demo, this TUI's own key")
}

// Once the TUI revoked its own key, the table leaves it out and counts
// the keys left (a read would be refused), the status line says plainly
// that the TUI must start again with another key, and so does every 401
// after (ctrl+r); disabling it says the same, until it is enabled again.
func TestSettingsRevokingItsOwnKey(t *testing.T) {
	d, f := settingsDriver(t, adminKey)
	d.press("g", "d")
	d.typeText("demo")
	d.press("enter")
	expectWrapped(t, d, "✓ Revoked key demo, this TUI's own key: every request is refused from now on. "+
		"Quit (q) and start again with another key.", "2 keys")
	d.expectNot(t, "* demo", "3 keys")
	d.press("ctrl+r")
	expectWrapped(t, d, "✗ This TUI's key, demo, is revoked: every request is refused (401) from now on. "+
		"Quit (q) and start again with another key.")

	d, f = settingsDriver(t, adminKey)
	d.press("g", "e")
	d.typeText("demo")
	d.press("enter")
	expectChanges(t, f, new(int), "UpdateKey 1 enabled false")
	expectWrapped(t, d, "✓ Disabled key demo, this TUI's own key: every request is refused until an admin key enables it. "+
		"Quit (q) and start again with another key.", "3 keys")
	if !strings.Contains(lineOf(d, "* demo"), "disabled") {
		t.Errorf("demo's row: %q", lineOf(d, "* demo"))
	}
	d.press("ctrl+r")
	expectWrapped(t, d, "✗ This TUI's key, demo, is disabled: every request is refused (401) until an admin key enables it. "+
		"Quit (q) and start again with another key.")
}

// The Settings page at 80x24 and 120x35: its keys, its trainers, its
// company, and a new key's secret.
func TestGoldenSettings(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {120, 35}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			d, f := settingsDriver(t, adminKey)
			d.send(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
			shot := shooter(t, d, "settings", size)
			shot("keys")
			d.press("n")
			d.typeText("sam-phone")
			d.press("tab", "tab")
			d.typeText("Maya")
			shot("secret", "ctrl+s")
			shot("trainers", "enter", "2")
			shot("company", "3")
			// What the trial changed: the deactivation's question (the
			// keys it disables), a form kept open on the server's
			// refusal, the keys' table with a disabled key, and what a
			// full key sees (the keys' explanation, the trainers
			// read-only).
			shot("deactivate", "2", "d", "down", "enter")
			d.press("n", "n")
			d.typeText("Leo Tran")
			d.press("tab")
			d.typeText("maya.brooks@demo-fitness.example")
			f.failNext("CreateTrainer", fieldRefusal(api.CodeEmailTaken, "email", "e-mail address is already in use"))
			shot("refused-trainer", "enter")
			shot("disabled-key", "esc", "1", "down", "e", "y")
			d, _ = settingsDriver(t, &api.CurrentKey{ID: 3, Name: "maya-phone", Scope: api.KeyScopeFull, CompanyName: "Demo Fitness"})
			d.send(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
			shot = shooter(t, d, "settings", size)
			shot("full-key-keys")
			shot("full-key-trainers", "2")
		})
	}
}

// The footers of the Settings page fit 80 columns with their changes'
// keys (the section switch gives way first).
func TestSettingsFootersFit(t *testing.T) {
	d, _ := settingsDriver(t, adminKey)
	lastLine := func() string { l := strings.Split(d.screen(), "\n"); return l[len(l)-1] }
	for _, c := range []struct{ key, want string }{
		{"1", "n new key • r rotate • d revoke • e disable • esc back • ? help • q quit"},
		{"2", "n new • r reassign • d deactivate • u activate • esc back • ? help • q quit"},
		{"3", "e edit • tab section • esc back • ? help • q quit"},
	} {
		d.press(c.key)
		if got := lastLine(); got != c.want {
			t.Errorf("section %s: footer %q, want %q", c.key, got, c.want)
		}
	}
}

// The page and its dialogs fit every size, down to 60x16.
func TestSettingsFitsEverySize(t *testing.T) {
	d, _ := settingsDriver(t, adminKey)
	for _, size := range [][2]int{{60, 16}, {80, 24}, {120, 35}, {200, 50}} {
		w, h := size[0], size[1]
		d.send(tea.WindowSizeMsg{Width: w, Height: h})
		for _, st := range []struct {
			name string
			keys []string
		}{
			{"keys", []string{"1"}}, {"new key", []string{"n"}}, {"rotate", []string{"esc", "r"}}, {"revoke own key", []string{"n", "d"}},
			{"trainers", []string{"esc", "2"}}, {"picker", []string{"r"}}, {"company", []string{"esc", "3"}}, {"edit", []string{"e"}},
		} {
			d.press(st.keys...)
			checkFits(t, d, w, h, st.name)
		}
		d.press("esc")
	}
}

// A status line belongs to the action that made it: it goes when the
// next question or section opens.
func TestSettingsStatusLineGoesWithItsAction(t *testing.T) {
	d, f := settingsDriver(t, adminKey)
	d.press("n")
	d.typeText("crm-2")
	d.press("ctrl+s", "c")
	d.expect(t, "Copied to the clipboard")
	d.press("enter", "r")
	d.expect(t, "Rotate key")
	d.expectNot(t, "Copied to the clipboard")
	d.press("n", "3", "e", "tab", "ctrl+u")
	d.typeText("Mars/Olympus")
	d.press("ctrl+s")
	d.expect(t, "✗ Time zone is not right")
	d.press("ctrl+u")
	d.typeText("America/New_York")
	d.press("ctrl+s")
	d.expect(t, "Change the time zone from Europe/London to America/New_York?")
	d.expectNot(t, "Time zone is not right")
	d.press("n", "1")
	f.failNext("RevokeKey", errLastAdmin)
	d.press("g", "d")
	d.typeText("demo")
	d.press("enter")
	d.expect(t, "last enabled admin key")
	for _, section := range []string{"2", "3", "tab"} {
		d.press(section)
		d.expectNot(t, "last enabled admin key")
	}
}

// e disables the selected key after a question (its name typed for the
// key the TUI uses), and enables a disabled one at once; the company's
// last admin key stays enabled (409 1032), and the status line says so.
func TestSettingsEnablesAndDisablesKeys(t *testing.T) {
	d, f := settingsDriver(t, adminKey)
	seen := 0
	d.press("down", "e")
	d.expect(t, "Disable key crm-export?", "refused until e enables it again")
	d.press("n")
	d.expect(t, "Not disabled.")
	expectChanges(t, f, &seen)
	d.press("e", "y")
	expectChanges(t, f, &seen, "UpdateKey 2 enabled false")
	d.expect(t, "✓ Disabled key crm-export: it is refused until e enables it again.", "e enable")
	if !strings.Contains(lineOf(d, "crm-export "), "disabled") {
		t.Errorf("crm-export's row: %q", lineOf(d, "crm-export "))
	}
	d.press("e")
	expectChanges(t, f, &seen, "UpdateKey 2 enabled true")
	d.expect(t, "✓ Enabled key crm-export: it works again.", "e disable")
	d.press("g", "e")
	d.expect(t, "Disable key demo, the key this TUI uses?", "Type its name to disable it:")
	d.typeText("demo")
	f.failNext("UpdateKey", errLastAdmin)
	d.press("enter")
	expectChanges(t, f, &seen, "UpdateKey 1")
	expectWrapped(t, d, "✗ Key demo stays enabled: it is the company's last enabled admin key without an expiry, "+
		"and a company keeps one (409 1032). Create another first.")
	d.press("?")
	d.expect(t, "e disable")
}

// fieldRefusal is a 400 naming one field.
func fieldRefusal(code int, field, msg string) error {
	fe := api.FieldError{ErrorCode: code, Field: field, Message: msg}
	return &client.RejectedError{CallInfo: client.CallInfo{Status: 400},
		ErrorBody: api.ErrorBody{ErrorCode: code, Field: field, Message: msg, Errors: []api.FieldError{fe}}}
}

// A form stays open while its request is sent, and on the server's
// refusal: what was typed stays, the problem shows by its entry until the
// entry changes, and the form sends again. The new trainer's, the new
// key's and the company's forms (after the time zone's question).
func TestSettingsFormsStayOpenOnARefusal(t *testing.T) {
	d, f := settingsDriver(t, adminKey)
	seen := 0
	d.press("2", "n")
	d.typeText("Leo Tran")
	d.press("tab")
	d.typeText("maya.brooks@demo-fitness.example")
	f.failNext("CreateTrainer", fieldRefusal(api.CodeEmailTaken, "email", "e-mail address is already in use"))
	d.press("enter")
	expectChanges(t, f, &seen, "CreateTrainer 11")
	d.expect(t, "New trainer", "Leo Tran", "maya.brooks@demo-fitness.example", "✗ 1008 e-mail address is already in use",
		"(server)", "✗ Rejected: 1008 email: e-mail address is already in use")
	checkFits(t, d, 80, 24, "the refused trainer")
	d.press("ctrl+u")
	d.typeText("leo.tran@demo-fitness.example")
	d.expectNot(t, "(server)")
	d.press("ctrl+s")
	expectChanges(t, f, &seen, "CreateTrainer 12")
	d.expect(t, "✓ Added trainer Leo Tran (#12).")
	d.expectNot(t, "New trainer")

	d.press("1", "n")
	d.typeText("leo-phone")
	d.press("tab", "tab")
	d.typeText("Leo Park")
	f.failNext("CreateKey", fieldRefusal(api.CodeTrainerInactive, "trainerId", "trainer 4 is deactivated: choose an active trainer"))
	d.press("ctrl+s")
	expectChanges(t, f, &seen, "CreateKey 13")
	d.expect(t, "New API key", "leo-phone", "✗ 1035 trainer 4 is deactivated", "▸ Trainer")
	d.press("esc")
	d.expect(t, "No key was created.")
	d.expectNot(t, "New API key")

	d.press("3", "e", "tab", "ctrl+u")
	d.typeText("America/New_York")
	d.press("ctrl+s")
	f.failNext("UpdateCompany", fieldRefusal(api.CodeInvalidEnum, "timeZone", "timeZone is not a time zone this server knows"))
	d.press("y")
	expectChanges(t, f, &seen, "UpdateCompany 1")
	d.expect(t, "The company", "America/New_York", "✗ 1004 timeZone is not a time zone this server knows", "(server)")
	d.press("ctrl+s", "y")
	expectChanges(t, f, &seen, "UpdateCompany 1 zone America/New_York")
	d.expect(t, "✓ Saved the company: Demo Fitness, time zone America/New_York.")
	d.expectNot(t, "(server)")
}

// The keys' table shows each key's prefix (keys may share a name) with
// every column whole at 80 columns: when the last use to the minute
// leaves no room, it shows its day.
func TestSettingsKeysTableFits80Columns(t *testing.T) {
	d, f := settingsDriver(t, adminKey)
	tomas, name, used := int64(2), "Tomás Rivera", fakeNow
	f.keys = append(f.keys, &api.APIKey{ID: 4, Name: "maya-phone", Prefix: "pk_maya4", Scope: api.KeyScopeFull, TrainerID: &tomas,
		TrainerName: &name, CreatedAt: fakeNow, LastUsedAt: &used, State: api.KeyDisabled})
	d.press("ctrl+r")
	d.expect(t, "PREFIX", "pk_demo1", "pk_crm02", "pk_maya3", "pk_maya4", "Tomás Rivera", "2026-11-20 ", "disabled")
	d.expectNot(t, "…", "09:30 never")
	checkFits(t, d, 80, 24, "four keys")
	d.send(tea.WindowSizeMsg{Width: 120, Height: 35})
	d.expect(t, "2026-11-20 09:30 never")
}

// S means one thing on every screen that does not take typed text: the
// Settings page (esc goes back to where it was pressed); the list reverses
// its order with o, so S there no longer flips the sort.
func TestSOpensSettingsEverywhere(t *testing.T) {
	s := newServer(t)
	f := newAdminFake(s.client(s.Key))
	for _, from := range []struct {
		name   string
		keys   []string
		screen common.Screen
	}{
		{"home", nil, common.ScreenHome},
		{"list", []string{"l"}, common.ScreenList},
		{"trainee", []string{"l", "enter"}, common.ScreenTrainee},
		{"webhooks", []string{"w"}, common.ScreenWebhooks},
		{"automations", []string{"a"}, common.ScreenAutomations},
	} {
		d := newDriver(t, f, Options{NoColor: true, Start: "home", Key: adminKey})
		d.send(tea.WindowSizeMsg{Width: 80, Height: 24})
		d.press(from.keys...)
		if d.m.screen != from.screen {
			t.Fatalf("%s: on %v", from.name, d.m.screen)
		}
		desc := d.m.list.SortDesc
		d.press("S")
		if d.m.screen != common.ScreenSettings || d.m.list.SortDesc != desc {
			t.Errorf("S on %s: screen %v, sort reversed %v", from.name, d.m.screen, d.m.list.SortDesc != desc)
		}
		d.press("esc")
		if d.m.screen != from.screen {
			t.Errorf("esc from the Settings page opened on %s: %v", from.name, d.m.screen)
		}
	}
	// While typing a search, S is a letter.
	d := newDriver(t, f, Options{NoColor: true, Start: "home", Key: adminKey})
	d.send(tea.WindowSizeMsg{Width: 80, Height: 24})
	d.press("l", "/", "S")
	if d.m.screen != common.ScreenList || d.m.list.Input.Value() != "S" {
		t.Errorf("S in a search: screen %v, query %q", d.m.screen, d.m.list.Input.Value())
	}
}
