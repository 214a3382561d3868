package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
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
