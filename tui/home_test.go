package tui

import (
	"context"
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/client"
	"github.com/traineed/traineed/tui/pages/home"
)

// The home page is the first screen: its counts come from GET
// /trainees/stats and each opens the list filtered to it, whose total is
// the count; esc clears the filter, then goes home.
func TestHomeCountsOpenTheirLists(t *testing.T) {
	s := newServer(t)
	d := newDriver(t, s.client(s.Key), Options{NoColor: true, Start: "home"})
	d.send(tea.WindowSizeMsg{Width: 100, Height: 30})
	d.expect(t, "Home", "What needs attention", "Recent changes")
	counts := d.m.home.Counts
	for i, r := range home.Rows {
		n := r.Value(&counts)
		d.press("H", "g")
		for range i {
			d.press("down")
		}
		d.press("enter")
		d.expect(t, "Trainees", fmt.Sprintf("of %d ", n))
		if d.m.list.Total != int64(n) {
			t.Errorf("%s: the list has %d trainees, the count says %d", r.Label, d.m.list.Total, n)
		}
		if r.Filter != nil {
			d.expect(t, "only: ", "(esc clears)")
			d.press("esc")
			d.expectNot(t, "only: ")
		}
		d.press("esc")
		d.expect(t, "What needs attention")
	}
	all := searchAll(t, s.direct(), client.SearchParams{Status: api.StatusAll})
	if counts.Active+counts.Expired+counts.Deleted != len(all) {
		t.Errorf("counts %+v do not add up to the %d trainees", counts, len(all))
	}
}

// The recent changes say who made each: the name of the key whose request
// made it, the automation's (after ⚙) for what an automation did, and
// "system" for what the server did by itself (the demo data's loader).
func TestRecentChangesShowWhoMadeThem(t *testing.T) {
	s := newServer(t)
	ctx := context.Background()
	anna := s.client(s.addKey(t, "coach-anna", api.KeyScopeFull))
	_, err := anna.CreateAutomation(ctx, client.AutomationParams{Name: api.Val("Archive new"), Trigger: api.Val(client.AutomationTrigger{Type: api.Val("TRAINEE_CREATED")}),
		ActionType: api.Val("DISABLE_TRAINEE")})
	must(t, err)
	_, err = anna.CreateTrainee(ctx, api.CreateRequest{Name: "Walk In", Email: "walk.in@example.com", Password: "long enough"})
	must(t, err)
	_, err = s.direct().UpdateTrainee(ctx, 1, api.TraineePatch{Name: api.Val("Ada Renamed")})
	must(t, err)
	d := newDriver(t, s.client(s.Key), Options{NoColor: true, background: firstFeedOnly(), Start: "home"})
	d.send(tea.WindowSizeMsg{Width: 120, Height: 35})
	screen := d.screen()
	for _, want := range []struct{ line, who string }{
		{"updated  Ada Renamed", "demo"},
		{"deleted  Walk In", "⚙ Archive new"},
		{"created  Walk In", "coach-anna"},
	} {
		if line := lineWith(screen, want.line); !strings.Contains(line, want.who) {
			t.Errorf("the change %q does not show %q as its maker: %q\n%s", want.line, want.who, line, screen)
		}
	}
	if line := lineWith(screen, "created  Dmitri"); !strings.Contains(line, "system") {
		t.Errorf("the demo data's change does not show the system as its maker: %q", line)
	}
	if f := strings.Fields(lineWith(screen, "updated  Ada Renamed")); len(f) < 2 || f[len(f)-2] != "demo" || f[len(f)-1] != "name" {
		t.Errorf("the update's fields do not follow its maker: %q", f)
	}
	// At 45 columns the fields give way; the maker stays, cut.
	d.send(tea.WindowSizeMsg{Width: 45, Height: 24})
	screen = d.screen()
	if line := lineWith(screen, "deleted  Walk In"); !strings.Contains(line, "⚙ Archi") {
		t.Errorf("at 45 columns the maker is cut too far: %q", line)
	}
	if line := strings.TrimSpace(lineWith(screen, "updated  Ada Renamed")); !strings.HasSuffix(line, "demo") {
		t.Errorf("at 45 columns the fields stay, or the maker goes: %q", line)
	}
}

// The dashboard's footer names S settings where there is room for it: it
// gives way first, before ? help, as the footers' hints do.
func TestHomeFooterOffersSettingsWhereItFits(t *testing.T) {
	s := newServer(t)
	d := newDriver(t, s.client(s.Key), Options{NoColor: true, Start: "home"})
	for _, c := range []struct {
		width int
		want  string
	}{
		{120, "enter open • l list • : cmd • w webhooks • a automations • S settings • ? help • q quit"},
		{80, "enter open • l list • : cmd • w webhooks • a automations • ? help • q quit"},
	} {
		d.send(tea.WindowSizeMsg{Width: c.width, Height: 30})
		lines := strings.Split(d.screen(), "\n")
		if got := strings.TrimSpace(lines[len(lines)-1]); got != c.want {
			t.Errorf("at %d columns: %q, want %q", c.width, got, c.want)
		}
	}
}
