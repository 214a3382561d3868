package tui

import (
	"net/http"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/traineed/traineed/api/apitest"
	"github.com/traineed/traineed/api/client"
)

// TestHostileServerText: over a server whose every text commands or
// reorders a terminal, no screen of the TUI writes a control character
// (but its own newlines and SGR styling), DEL, a C1 control or a
// bidirectional formatting character, with and without colour: the list,
// a search, every tab of a trainee, the edit form and its 400, the delete
// confirmation and its status, webhooks with their deliveries, a test and
// a refused redelivery, automations and their runs. The text shows
// escaped.
func TestHostileServerText(t *testing.T) {
	srv := apitest.Server(t)
	for _, noColor := range []bool{true, false} {
		rec := &recorder{}
		c := client.New(srv.URL, "pk_stubstubstubstubstubstubstubstubstubstub", client.WithRetryDelays(),
			client.WithHTTPClient(&http.Client{Transport: rec}))
		d := newDriver(t, c, Options{NoColor: noColor})
		d.send(tea.WindowSizeMsg{Width: 160, Height: 40})
		d.settle()
		shot := func(what string, shown ...string) {
			t.Helper()
			screen := d.m.View().Content
			if err := apitest.TerminalSafe(screen); err != nil {
				t.Errorf("no colour %v, %s: %v\n%s", noColor, what, err, screen)
			}
			for _, s := range shown {
				if !strings.Contains(d.screen(), s) {
					t.Errorf("no colour %v, %s: the screen lacks %q:\n%s", noColor, what, s, d.screen())
				}
			}
		}
		escaped := `Eve\u001b]0;pwned`
		shot("list", escaped)
		// A search typed with a bidirectional override (the input keeps
		// it: it is refused by the server, and never drawn raw).
		d.press("/")
		d.typeText("x\u202ey")
		shot("search input")
		d.press("enter")
		shot("search", `x\u202ey`, escaped)
		d.press("esc")

		d.press("enter")
		shot("profile", escaped, `Eve\u001b]0;pwned\u0007\u001b[2J\u009b31mRed\u007fDel \u202egnp.exe`)
		for _, tab := range []string{"2", "3", "4", "5"} {
			d.press(tab)
			shot("trainee tab " + tab)
		}
		d.press("3")
		shot("measurements", escaped)
		d.press("4")
		shot("nutrition", escaped)
		d.press("1")

		// The edit form shows the stored text escaped, sends none of it
		// unchanged, and shows the server's refusal escaped.
		d.press("e")
		shot("edit form", escaped)
		d.press("ctrl+u")
		d.typeText("Ada")
		rec.take()
		d.press("ctrl+s")
		shot("edit refused", escaped)
		if reqs := rec.take(); len(reqs) != 1 || reqs[0].Method != "PUT" || reqs[0].Body != `{"name":"Ada"}` {
			t.Errorf("the form sent %+v, want only the new name", reqs)
		}
		d.press("esc", "y", "esc")

		d.press("d")
		shot("delete confirmation", escaped)
		d.press("y")
		shot("deleted", escaped)

		d.press("w")
		shot("webhooks", escaped)
		d.press("t")
		shot("webhook test", escaped)
		d.press("tab", "r")
		shot("redelivery refused", escaped)
		d.press("esc")

		d.press("a")
		shot("automations", escaped)
		d.press("enter")
		shot("runs", escaped)
	}
}
