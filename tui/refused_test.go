package tui

import (
	"net/http"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/client"
	"github.com/traineed/traineed/tui/components/statusline"
)

// A refused key (401): the dashboard says so in the status line, its
// counts show "-" (not "…" forever), and the title does not say offline.
func TestRefusedKeyOnHome(t *testing.T) {
	s := newServer(t)
	d := newDriver(t, s.client("tk_wrong"), Options{NoColor: true, background: firstFeedOnly(), Start: "home"})
	d.send(tea.WindowSizeMsg{Width: 80, Height: 24})
	d.expect(t, "key was refused (401)", "● key refused")
	d.expectNot(t, "offline", "…  active")
	if !strings.Contains(d.screen(), "-  active") {
		t.Errorf("the active count is not -:\n%s", d.screen())
	}
}

// A route refused to the key (403) says what the key is and what it would
// need, with the status and the error code.
func TestKeyRefusalsSayWhatTheKeyLacks(t *testing.T) {
	for code, want := range map[int]string{
		api.CodeReadOnlyKey: "This API key is read-only: changes need a full key (403 1014).",
		api.CodeAdminScope:  "This API key is not an admin key: the company's keys, and changes to its trainers and settings, need one (403 1029).",
		api.CodeOwnTrainees: "This API key acts for its trainer's trainees only: this reaches beyond them (403 1030).",
	} {
		err := &client.RejectedError{CallInfo: client.CallInfo{Status: http.StatusForbidden},
			ErrorBody: api.ErrorBody{ErrorCode: code, Message: "refused"}}
		if got := statusline.Describe(err); got != want {
			t.Errorf("%d: %q, want %q", code, got, want)
		}
	}
}

// A read key's change that the TUI did not refuse itself (its scope was
// not known) is refused by the server: the status line says why.
func TestReadKeyRefusedByTheServer(t *testing.T) {
	s := newServer(t)
	d := newDriver(t, s.client(s.addKey(t, "reader", api.KeyScopeRead)), Options{NoColor: true})
	d.send(tea.WindowSizeMsg{Width: 120, Height: 30})
	d.press("d", "y")
	d.expect(t, "✗ This API key is read-only: changes need a full key (403 1014).")
}
