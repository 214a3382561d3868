package tui

import (
	"context"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/traineed/traineed/api"
)

// Never overwrite a colleague: the form saves with If-Match; when a
// colleague changed the trainee meanwhile, the 412 shows the server's
// change beside the coach's edit; a re-applies the edit over it (both
// changes kept), d discards it (the colleague's stays, the edit is not
// sent).
func TestEditConflictShowsTheServersChangeAndReapplies(t *testing.T) {
	s := newServer(t)
	other := s.direct()
	ctx := context.Background()
	d := newDriver(t, s.client(s.Key), Options{NoColor: true})
	d.send(tea.WindowSizeMsg{Width: 100, Height: 30})
	d.press("e")
	d.expect(t, "Edit Ada Park")
	if d.m.form.Etag == "" {
		t.Fatal("the form read no ETag")
	}
	if _, err := other.UpdateTrainee(ctx, 1, api.TraineePatch{PhoneNumber: api.Val("+447700900111")}); err != nil {
		t.Fatal(err)
	}
	d.press("backspace", "backspace", "backspace", "backspace")
	d.typeText("Parker")
	s.rec.take()
	d.press("ctrl+s")
	d.expect(t, "Ada Park changed on the server while you edited.", "Nothing was saved.",
		"phoneNumber", "+447700900767", "+447700900111", "(unchanged)", "name", "Ada Parker", "a re-apply my edit")
	var ifMatch bool
	for _, r := range s.rec.take() {
		ifMatch = ifMatch || r.Method == "PUT" && r.IfMatch != ""
	}
	if !ifMatch {
		t.Error("the save sent no If-Match")
	}
	got, err := other.Trainee(ctx, 1)
	must(t, err)
	if got.Name != "Ada Park" {
		t.Fatalf("the 412 changed the name: %q", got.Name)
	}
	d.press("a")
	d.expect(t, "Saved Ada Parker: name.")
	got, err = other.Trainee(ctx, 1)
	must(t, err)
	if got.Name != "Ada Parker" || got.PhoneNumber == nil || *got.PhoneNumber != "+447700900111" {
		t.Fatalf("after re-applying: %q %v", got.Name, got.PhoneNumber)
	}

	// Discard: the colleague's change stays, the edit is not sent.
	d.press("e")
	if _, err := other.UpdateTrainee(ctx, 1, api.TraineePatch{Name: api.Val("Ada Colleague")}); err != nil {
		t.Fatal(err)
	}
	d.press("tab")
	d.typeText("x")
	d.press("ctrl+s")
	d.expect(t, "changed on the server while you edited", "Ada Colleague")
	d.press("d")
	d.expect(t, "Your edit was discarded: Ada Colleague is shown as it is on the server.")
	got, err = other.Trainee(ctx, 1)
	must(t, err)
	if got.Name != "Ada Colleague" || got.Email != "ada.park@example.net" {
		t.Fatalf("after discarding: %q %q", got.Name, got.Email)
	}
}
