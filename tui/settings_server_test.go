package tui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/client"
	"github.com/traineed/traineed/tui/components/dialog"
	"github.com/traineed/traineed/tui/components/layout"
	"github.com/traineed/traineed/tui/pages/settings"
)

// secretShown is the secret the notice on screen shows ("" when none).
func secretShown(d *driver) string {
	if n, ok := d.m.modal.(*dialog.Notice); ok {
		return n.Value
	}
	return ""
}

// The Settings page against the real server: a key created through the
// page works with the trainer it was given, its rotation gives a secret
// that works while the old one still does, its revocation is refused from
// then on; a trainer's trainees moved through the page are the other
// trainer's on the server. The requests are the contract's.
func TestSettingsAgainstTheServer(t *testing.T) {
	s := newServer(t)
	ctx := context.Background()
	office := s.addKey(t, "office", api.KeyScopeAdmin)
	me, err := s.client(office).CurrentKey(ctx)
	must(t, err)
	d := newDriver(t, s.client(office), Options{NoColor: true, Start: "home", Key: me})
	d.send(tea.WindowSizeMsg{Width: 120, Height: 35})
	d.press("S")
	d.expect(t, "Settings", "* office", "admin", "Demo Fitness · office (admin)")
	// The trainers' table asks for the counts (counts=true: GET /trainers
	// alone leaves them out).
	counted := false
	for _, r := range s.rec.take() {
		counted = counted || r.Path == api.PathTrainers && r.Query["counts"] == "true"
	}
	if !counted {
		t.Errorf("the Settings page read the trainers without their counts")
	}

	first, sam := settingsCreateCoachKey(t, s, d)
	second := settingsRotateCoachKey(t, s, d, first, sam)
	settingsDisableAndRevokeCoachKey(t, s, d, second, sam, office)
	settingsMoveMayasTrainees(t, s, d, office)
	settingsRevokeOwnKey(t, s, d, office, me)
}

// settingsCreateCoachKey creates a coach's key bound to Maya Brooks
// through the page: the key works as the trainer's.
func settingsCreateCoachKey(t *testing.T, s *testServer, d *driver) (string, *api.CurrentKey) {
	ctx := context.Background()
	// Create a coach's key bound to Maya Brooks.
	d.press("n")
	d.typeText("coach-sam")
	d.press("tab", "tab")
	d.typeText("Maya")
	d.press("ctrl+s")
	d.expect(t, "Key coach-sam (full) was created. Its secret:", "it will not be shown again")
	first := secretShown(d)
	sam, err := s.client(first).CurrentKey(ctx)
	must(t, err)
	if sam.Name != "coach-sam" || sam.Scope != api.KeyScopeFull || sam.TrainerName == nil || *sam.TrainerName != "Maya Brooks" {
		t.Fatalf("the key made through the page: %+v", sam)
	}
	expectRequests(t, s, "POST "+api.PathKeys)
	d.press("enter")
	d.expect(t, "coach-sam", "Maya Brooks")
	return first, sam
}

// settingsRotateCoachKey rotates it: both secrets work during the
// overlap.
func settingsRotateCoachKey(t *testing.T, s *testServer, d *driver, first string, sam *api.CurrentKey) string {
	ctx := context.Background()
	// Rotate it: both secrets work during the overlap.
	d.press("G", "r", "y")
	d.expect(t, "Key coach-sam has a new secret:", "The old secret keeps working until")
	second := secretShown(d)
	expectRequests(t, s, fmt.Sprintf("POST %s/%d/rotate", api.PathKeys, sam.ID))
	for _, secret := range []string{first, second} {
		if k, err := s.client(secret).CurrentKey(ctx); err != nil || k.ID != sam.ID {
			t.Errorf("after the rotation, a secret: %v %v", k, err)
		}
	}
	d.press("enter")
	return second
}

// settingsDisableAndRevokeCoachKey disables the key (refused until
// enabled again), enables it, and revokes it (refused from then on).
func settingsDisableAndRevokeCoachKey(t *testing.T, s *testServer, d *driver, second string, sam *api.CurrentKey, office string) {
	ctx := context.Background()
	// Disable it: refused until it is enabled again (PATCH enabled).
	d.press("G", "e", "y")
	d.expect(t, "✓ Disabled key coach-sam: it is refused until e enables it again.")
	expectRequests(t, s, fmt.Sprintf("PATCH %s/%d", api.PathKeys, sam.ID), "GET "+api.PathKeys)
	if !strings.Contains(lineOf(d, "coach-sam"), "disabled") {
		t.Errorf("coach-sam's row: %q", lineOf(d, "coach-sam"))
	}
	var refusedKey *client.AuthRefusedError
	if _, err := s.client(second).CurrentKey(ctx); !errors.As(err, &refusedKey) {
		t.Errorf("a disabled key: %v", err)
	}
	d.press("e")
	d.expect(t, "✓ Enabled key coach-sam: it works again.")
	if _, err := s.client(second).CurrentKey(ctx); err != nil {
		t.Errorf("a key enabled again: %v", err)
	}
	s.rec.take()

	// Revoke it: refused from then on.
	d.press("G", "d", "y")
	d.expect(t, "Revoked key coach-sam: it is refused from now on.")
	d.expectNot(t, "coach-sam ")
	expectRequests(t, s, fmt.Sprintf("DELETE %s/%d", api.PathKeys, sam.ID), "GET "+api.PathKeys)
	var refused *client.AuthRefusedError
	if _, err := s.client(second).CurrentKey(ctx); !errors.As(err, &refused) {
		t.Errorf("a revoked key: %v", err)
	}
	keys, err := client.Collect(s.client(office).ListKeys(ctx, client.KeyListParams{State: "all"}))
	must(t, err)
	for _, k := range keys {
		if k.ID == sam.ID && k.State != api.KeyRevoked {
			t.Errorf("the server holds coach-sam as %s", k.State)
		}
	}
}

// settingsMoveMayasTrainees moves Maya Brooks's trainees to Hannah
// Okoye through the page.
func settingsMoveMayasTrainees(t *testing.T, s *testServer, d *driver, office string) {
	ctx := context.Background()
	// Move Maya Brooks's trainees to Hannah Okoye: the question counts
	// the live ones, the result what the server moved, soft-deleted
	// ones too.
	direct := s.client(office)
	ts, err := direct.Trainers(ctx, client.TrainerParams{})
	must(t, err)
	before := map[string]int{}
	ids := map[string]int64{}
	for _, tr := range ts {
		before[tr.Name] = len(searchAll(t, direct, client.SearchParams{Status: api.StatusAll, TrainerID: tr.ID}))
		ids[tr.Name] = tr.ID
	}
	mayas := searchAll(t, direct, client.SearchParams{Status: api.StatusLive, TrainerID: ids["Maya Brooks"]})
	_, err = direct.DeleteTrainee(ctx, mayas[0].ID)
	must(t, err)
	live := len(mayas) - 1
	s.rec.take()
	d.press("2", "ctrl+r", "g", "r")
	d.expect(t, fmt.Sprintf("Move Maya Brooks's %s and any soft-deleted ones to:", layout.Plural(live, "live trainee")))
	d.press("down", "enter") // Tomás Rivera, then Hannah Okoye
	expectWrapped(t, d, "and any soft-deleted ones to Hannah Okoye?")
	d.press("y")
	d.expect(t, fmt.Sprintf("✓ Moved %s from Maya Brooks to Hannah Okoye.", layout.Plural(before["Maya Brooks"], "trainee")))
	if live == before["Maya Brooks"] {
		t.Fatalf("Maya Brooks has no soft-deleted trainee: the counts cannot differ")
	}
	expectRequests(t, s, fmt.Sprintf("POST %s/%d/reassign", api.PathTrainers, ids["Maya Brooks"]))
	if n := len(searchAll(t, direct, client.SearchParams{Status: api.StatusAll, TrainerID: ids["Maya Brooks"]})); n != 0 {
		t.Errorf("Maya Brooks still has %d trainees", n)
	}
	if n := len(searchAll(t, direct, client.SearchParams{Status: api.StatusAll, TrainerID: ids["Hannah Okoye"]})); n != before["Hannah Okoye"]+before["Maya Brooks"] {
		t.Errorf("Hannah Okoye has %d trainees, want %d", n, before["Hannah Okoye"]+before["Maya Brooks"])
	}
	ts, err = direct.Trainers(ctx, client.TrainerParams{Counts: true})
	must(t, err)
	for _, tr := range ts {
		if tr.ID == ids["Maya Brooks"] && (tr.Trainees == nil || *tr.Trainees != 0) {
			t.Errorf("the server counts Maya Brooks's trainees as %v", settings.CountText(tr.Trainees))
		}
	}
}

// settingsRevokeOwnKey revokes the key the TUI uses.
func settingsRevokeOwnKey(t *testing.T, s *testServer, d *driver, office string, me *api.CurrentKey) {
	ctx := context.Background()
	// Revoke the key the TUI uses (the demo key stays the company's
	// admin key): the table leaves it out, and the status line, then
	// every 401, says the TUI must start again with another key.
	d.press("1", "g")
	for d.m.settings.SelectedKey().ID != me.ID {
		d.press("down")
	}
	d.press("d")
	d.typeText("office")
	d.press("enter")
	expectWrapped(t, d, "✓ Revoked key office, this TUI's own key: every request is refused from now on. "+
		"Quit (q) and start again with another key.")
	d.expectNot(t, "* office")
	var refused *client.AuthRefusedError
	if _, err := s.client(office).CurrentKey(ctx); !errors.As(err, &refused) {
		t.Errorf("the revoked key of the TUI: %v", err)
	}
	d.press("ctrl+r")
	expectWrapped(t, d, "✗ This TUI's key, office, is revoked: every request is refused (401) from now on. "+
		"Quit (q) and start again with another key.")
}

// expectRequests fails unless the requests that changed something since
// the last take are want ("METHOD path"), in order, and every one of
// want's reads is among the rest.
func expectRequests(t *testing.T, s *testServer, want ...string) {
	t.Helper()
	var changes, reads []string
	for _, r := range s.rec.take() {
		line := r.Method + " " + r.Path
		if r.Method == "GET" {
			reads = append(reads, line)
		} else {
			changes = append(changes, line)
		}
	}
	var wantChanges []string
	for _, w := range want {
		if len(w) > 4 && w[:4] == "GET " {
			found := false
			for _, r := range reads {
				found = found || r == w
			}
			if !found {
				t.Errorf("no %s among %q", w, reads)
			}
			continue
		}
		wantChanges = append(wantChanges, w)
	}
	if fmt.Sprint(changes) != fmt.Sprint(wantChanges) {
		t.Errorf("changes sent %q, want %q", changes, wantChanges)
	}
}

// newKey makes a key through the API with the demo company's admin key
// and returns its secret.
func newKey(t *testing.T, s *testServer, k api.NewKey) string {
	t.Helper()
	env, err := s.direct().CreateKey(context.Background(), k)
	must(t, err)
	return env.Secret
}

// The server's refusals, each in the status line: a key that is not an
// admin key (403 1029, the page then explains), a key limited to its
// trainer's trainees on a company-wide screen (403 1030), the company's
// last admin key (409 1032), a key revoked meanwhile (409 1036), a
// trainer given a trainee meanwhile (409 1033: the hand-over opens).
func TestSettingsRefusalsFromTheServer(t *testing.T) {
	s := newServer(t)
	ctx := context.Background()
	maya := int64(1)
	full := newKey(t, s, api.NewKey{Name: "front-desk", Scope: api.KeyScopeFull})
	d := newDriver(t, s.client(full), Options{NoColor: true, Start: "settings"})
	d.send(tea.WindowSizeMsg{Width: 160, Height: 30})
	d.expect(t, "✗ This API key is not an admin key: the company's keys, and changes to its trainers and settings, need one (403 1029).",
		"Keys are for admin keys.")
	// It reads the trainers and the company (GET needs no admin key).
	d.press("2")
	d.expect(t, "[Trainers]", "Maya Brooks", "Hannah Okoye", "active", "Read-only: an admin key adds, moves and deactivates trainers.")
	d.press("3")
	d.expect(t, "[Company]", "Demo Fitness")
	expectWrapped(t, d, "An admin key edits the name and the time zone.")
	d.press("2", "d", "r", "n")
	d.expectNot(t, "╭")

	limited := newKey(t, s, api.NewKey{Name: "maya-phone", Scope: api.KeyScopeFull, TrainerID: &maya, OwnTraineesOnly: true})
	d = newDriver(t, s.client(limited), Options{NoColor: true, Start: "settings"})
	d.send(tea.WindowSizeMsg{Width: 160, Height: 30})
	d.press("2")
	d.expect(t, "[Trainers]", "Maya Brooks", "Hannah Okoye")
	d.press("H")
	d.press("w")
	d.expect(t, "✗ This API key acts for its trainer's trainees only: this reaches beyond them (403 1030).",
		"Webhooks need a company-wide key.", "This key acts for its trainer's trainees only (own trainees only), and the webhooks are the company's")
	d.expectNot(t, "Loading")
	d.press("esc", "a")
	d.expect(t, "✗ This API key acts for its trainer's trainees only: this reaches beyond them (403 1030).",
		"Automations need a company-wide key.")
	d.expectNot(t, "Loading")

	// The demo key is the company's only admin key.
	demo, err := s.direct().CurrentKey(ctx)
	must(t, err)
	d = newDriver(t, s.client(s.Key), Options{NoColor: true, Start: "settings", Key: demo})
	d.send(tea.WindowSizeMsg{Width: 160, Height: 30})
	d.press("g", "d")
	d.typeText(demo.Name)
	d.press("enter")
	expectWrapped(t, d, "✗ Key demo is not revoked: it is the company's last enabled admin key without an expiry, and a company keeps one (409 1032). Create another first.")
	d.press("e")
	d.typeText(demo.Name)
	d.press("enter")
	expectWrapped(t, d, "✗ Key demo stays enabled: it is the company's last enabled admin key without an expiry, and a company keeps one (409 1032). Create another first.")

	keys, err := client.Collect(s.direct().ListKeys(ctx, client.KeyListParams{}))
	must(t, err)
	var desk *api.APIKey
	for i, k := range keys {
		if k.Name == "front-desk" {
			desk = k
			d.press("g")
			for range i {
				d.press("down")
			}
		}
	}
	_, err = s.direct().RevokeKey(ctx, desk.ID)
	must(t, err)
	d.press("r", "y")
	d.expect(t, "✗ Key front-desk is revoked already: create a new key instead (409 1036).")
	d.expectNot(t, "front-desk full")

	leo, err := s.direct().CreateTrainer(ctx, api.NewTrainer{Name: "Leo Park", Email: "leo.park@demo-fitness.example"})
	must(t, err)
	leosKey := newKey(t, s, api.NewKey{Name: "leo-phone", Scope: api.KeyScopeFull, TrainerID: &leo.ID})
	d.press("2", "ctrl+r", "G")
	d.expect(t, "Leo Park")
	_, err = s.direct().UpdateTrainee(ctx, 1, api.TraineePatch{TrainerID: api.Val(leo.ID)})
	must(t, err)
	d.press("d")
	expectWrapped(t, d, "Deactivate Leo Park and disable their key leo-phone?")
	d.press("y")
	d.expect(t, "✗ Leo Park still has trainees: pick who takes them over (409 1033).", "Leo Park has trainees: who takes them over?")
	d.press("enter")
	expectWrapped(t, d, "Deactivate Leo Park, move their trainees (and any soft-deleted ones) to Maya Brooks, and disable their key leo-phone?")
	s.rec.take()
	d.press("y")
	expectWrapped(t, d, "✓ Deactivated Leo Park: moved 1 trainee to Maya Brooks and disabled their key leo-phone.")
	expectRequests(t, s, fmt.Sprintf("PATCH %s/%d", api.PathTrainers, leo.ID), "GET "+api.PathKeys, "GET "+api.PathTrainers)
	if tr, err := s.direct().Trainee(ctx, 1); err != nil || tr.TrainerID == nil || *tr.TrainerID != maya {
		t.Errorf("trainee 1 after the hand-over: %+v %v", tr, err)
	}
	var refused *client.AuthRefusedError
	if _, err := s.client(leosKey).CurrentKey(ctx); !errors.As(err, &refused) {
		t.Errorf("the key of a deactivated trainer: %v", err)
	}
	d.press("1")
	d.expect(t, "leo-phone")
	if !strings.Contains(lineOf(d, "leo-phone"), "disabled") {
		t.Errorf("leo-phone's row: %q", lineOf(d, "leo-phone"))
	}
	d.press("2", "G", "u")
	expectWrapped(t, d, "✓ Activated Leo Park; their key leo-phone stays disabled: e on the Keys section enables it.")
}

// lineOf is the first line of the screen that holds text.
func lineOf(d *driver, text string) string {
	for _, l := range strings.Split(d.screen(), "\n") {
		if strings.Contains(l, text) {
			return l
		}
	}
	return ""
}

// A trainer's key made on the server: the dashboard's counts are the
// trainer's (GET /trainees/stats?trainerId=), the list holds the
// trainer's trainees only, and m shows the company's.
func TestTrainersKeyAgainstTheServer(t *testing.T) {
	s := newServer(t)
	ctx := context.Background()
	hannah := int64(3)
	secret := newKey(t, s, api.NewKey{Name: "hannah-phone", Scope: api.KeyScopeFull, TrainerID: &hannah})
	c := s.client(secret)
	me, err := c.CurrentKey(ctx)
	must(t, err)
	d := newDriver(t, c, Options{NoColor: true, Start: "home", Key: me})
	d.send(tea.WindowSizeMsg{Width: 100, Height: 30})
	d.expect(t, "Home · my trainees", "Demo Fitness · Hannah Okoye (full)")
	mine, err := s.direct().TraineeStats(ctx, hannah)
	must(t, err)
	all, err := s.direct().TraineeStats(ctx, 0)
	must(t, err)
	if mine.Active >= all.Active {
		t.Fatalf("Hannah's %d active trainees are not fewer than the company's %d", mine.Active, all.Active)
	}
	if d.m.home.Counts.Active != mine.Active || d.m.home.Counts.Deleted != mine.Deleted {
		t.Errorf("the dashboard counts %+v, Hannah's are %+v", d.m.home.Counts, mine)
	}
	d.press("l")
	live := searchAll(t, s.direct(), client.SearchParams{Status: api.StatusLive, TrainerID: hannah})
	if d.m.list.Total != int64(len(live)) {
		t.Errorf("the list has %d trainees, Hannah %d", d.m.list.Total, len(live))
	}
	for _, tr := range d.m.list.Items {
		if tr.TrainerID == nil || *tr.TrainerID != hannah {
			t.Errorf("%s (trainer %v) is not Hannah's", tr.Name, tr.TrainerID)
		}
	}
	d.press("m", "H")
	if d.m.home.Counts.Active != all.Active {
		t.Errorf("all: the dashboard counts %d active, the company %d", d.m.home.Counts.Active, all.Active)
	}
}

// The server's refusals of a form keep it open, what was typed kept and
// the problem by its entry: a trainer's e-mail in use (400 1008), a key
// for a deactivated trainer (400 1035).
func TestSettingsFormsAgainstTheServer(t *testing.T) {
	s := newServer(t)
	ctx := context.Background()
	demo, err := s.direct().CurrentKey(ctx)
	must(t, err)
	leo, err := s.direct().CreateTrainer(ctx, api.NewTrainer{Name: "Leo Park", Email: "leo.park@demo-fitness.example"})
	must(t, err)
	_, err = s.direct().DeactivateTrainer(ctx, leo.ID, nil)
	must(t, err)
	d := newDriver(t, s.client(s.Key), Options{NoColor: true, Start: "settings", Key: demo})
	d.send(tea.WindowSizeMsg{Width: 80, Height: 24})
	s.rec.take()
	d.press("2", "n")
	d.typeText("Leo Tran")
	d.press("tab")
	d.typeText("maya.brooks@demofitness.example")
	d.press("ctrl+s")
	expectRequests(t, s, "POST "+api.PathTrainers)
	d.expect(t, "New trainer", "Leo Tran", "maya.brooks@demofitness.example", "✗ 1008 e-mail address is already in use", "(server)")
	d.press("ctrl+u")
	d.typeText("leo.tran@demo-fitness.example")
	d.press("ctrl+s")
	d.expect(t, "✓ Added trainer Leo Tran")
	d.expectNot(t, "New trainer")

	d.press("1", "n")
	d.typeText("leo-phone")
	d.press("tab", "tab")
	d.typeText("Leo Park")
	s.rec.take()
	d.press("ctrl+s")
	expectRequests(t, s, "POST "+api.PathKeys)
	d.expect(t, "New API key", "leo-phone", "▸ Trainer", "✗ 1035", "is deactivated", "(server)")
	checkFits(t, d, 80, 24, "the refused key")
}
