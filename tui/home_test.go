package tui

import (
	"fmt"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/client"
)

// The home page is the first screen: its counts come from GET
// /trainees/stats and each opens the list filtered to it, whose total is
// the count; esc clears the filter, then goes home.
func TestHomeCountsOpenTheirLists(t *testing.T) {
	s := newServer(t)
	d := newDriver(t, s.client(s.Key), Options{NoColor: true, Start: "home"})
	d.send(tea.WindowSizeMsg{Width: 100, Height: 30})
	d.expect(t, "Home", "What needs attention", "Recent changes")
	counts := d.m.home.counts
	for i, r := range homeRows {
		n := r.value(&counts)
		d.press("H", "g")
		for range i {
			d.press("down")
		}
		d.press("enter")
		d.expect(t, "Trainees", fmt.Sprintf("of %d ", n))
		if d.m.list.total != int64(n) {
			t.Errorf("%s: the list has %d trainees, the count says %d", r.label, d.m.list.total, n)
		}
		if r.filter != nil {
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
