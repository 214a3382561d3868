package tui

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/traineed/traineed/api"
)

// coachKey is the key of a trainer (id, name) of Demo Fitness, as GET
// /keys/current shows it.
func coachKey(id int64, name string, only bool) *api.CurrentKey {
	return &api.CurrentKey{ID: 90, Name: "sam-phone", Scope: api.KeyScopeFull, CompanyName: "Demo Fitness",
		TrainerID: &id, TrainerName: &name, OwnTraineesOnly: only}
}

// firstLine is the screen's title bar.
func firstLine(d *driver) string { return strings.SplitN(d.screen(), "\n", 2)[0] }

// The title bars name the key in use: the company, the key's name (the
// trainer's for a key bound to one) and the scope, where there is room
// after the page's own words, which never give way to it.
func TestTitleNamesTheKeyInUse(t *testing.T) {
	s := newServer(t)
	key := &api.CurrentKey{ID: 1, Name: "front-desk", Scope: api.KeyScopeFull, CompanyName: "Demo Fitness"}
	d := newDriver(t, s.client(s.Key), Options{NoColor: true, Start: "home", Key: key})
	d.send(tea.WindowSizeMsg{Width: 80, Height: 24})
	if l := firstLine(d); !strings.HasPrefix(l, "Home ") || !strings.Contains(l, "Demo Fitness · front-desk (full)") {
		t.Errorf("home's title: %q", l)
	}
	if got := d.m.View().WindowTitle; got != "traineectl · Demo Fitness · front-desk (full)" {
		t.Errorf("window title %q", got)
	}
	// The list's title at 80 columns has no room: it is as it was.
	d.press("l")
	if l := firstLine(d); strings.Contains(l, "front-desk") || !strings.Contains(l, "○ paused") {
		t.Errorf("the list's title at 80 columns: %q", l)
	}
	d.send(tea.WindowSizeMsg{Width: 120, Height: 35})
	if l := firstLine(d); !strings.Contains(l, "Demo Fitness · front-desk (full)") || !strings.Contains(l, "○ paused") {
		t.Errorf("the list's title at 120 columns: %q", l)
	}
	for _, size := range [][2]int{{80, 24}, {60, 16}, {120, 35}} {
		d.send(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
		for _, k := range []string{"H", "l", "w", "a"} {
			d.press(k)
			checkFits(t, d, size[0], size[1], k)
		}
	}
	// A key bound to a trainer is named by the trainer.
	d = newDriver(t, s.client(s.Key), Options{NoColor: true, Start: "home", Key: coachKey(1, "Sam Coach", false)})
	d.expect(t, "Demo Fitness · Sam Coach (full)")
	d.expectNot(t, "sam-phone")
}

// Whose key it is gives way: the company first, then (for a key limited
// to its trainer's trainees) "own trainees" becomes "own", then the name
// is cut, then nothing shows.
func TestIdentityFitsItsRoom(t *testing.T) {
	key, limited := New(nil, Options{Key: coachKey(1, "Sam Coach", false)}), New(nil, Options{Key: coachKey(1, "Sam Coach", true)})
	for _, c := range []struct {
		m    *Model
		room int
		want string
	}{
		{key, 80, "Demo Fitness · Sam Coach (full)"},
		{key, 31, "Demo Fitness · Sam Coach (full)"},
		{key, 30, "Sam Coach (full)"},
		{key, 16, "Sam Coach (full)"},
		{key, 14, "Sam Co… (full)"},
		{key, 13, "Sam C… (full)"},
		{key, 12, ""},
		{key, 0, ""},
		{limited, 80, "Demo Fitness · Sam Coach (full, own trainees)"},
		{limited, 45, "Demo Fitness · Sam Coach (full, own trainees)"},
		{limited, 44, "Sam Coach (full, own trainees)"},
		{limited, 30, "Sam Coach (full, own trainees)"},
		{limited, 29, "Sam Coach (full, own)"},
		{limited, 21, "Sam Coach (full, own)"},
		{limited, 20, "Sam Coa… (full, own)"},
		{limited, 18, "Sam C… (full, own)"},
		{limited, 17, ""},
	} {
		if got := c.m.Identity(c.room); got != c.want || ansi.StringWidth(got) > c.room {
			t.Errorf("identity(%d) = %q, want %q", c.room, got, c.want)
		}
	}
	if got := New(nil, Options{}).Identity(80); got != "" {
		t.Errorf("an unknown key shows %q", got)
	}
}

// A key bound to a trainer starts the dashboard and the list on the
// trainer's trainees (trainerId= on the stats and the search); m shows all
// of the company's and back, and the titles say which.
func TestMineAndAllForATrainersKey(t *testing.T) {
	s := newServer(t)
	d := newDriver(t, s.client(s.Key), Options{NoColor: true, Start: "home", Key: coachKey(1, "Maya Brooks", false)})
	d.send(tea.WindowSizeMsg{Width: 80, Height: 24})
	d.expect(t, "Home · my trainees", "What needs attention among my trainees", "m shows all")
	reqs := s.rec.take()
	checkTrainerParam(t, "at the start", reqs, "1")
	d.press("l")
	d.expect(t, "My trainees  [live]")
	checkFits(t, d, 80, 24, "list of my trainees")
	s.rec.take()
	d.press("m")
	d.expect(t, "All trainees  [live]", "All of the company's trainees: m shows Maya Brooks's again.")
	checkTrainerParam(t, "after m", s.rec.take(), "")
	d.press("H")
	d.expect(t, "Home · all trainees", "m shows mine")
	s.rec.take()
	d.send(kp(":"))
	d.typeText("mine")
	d.press("enter")
	d.expect(t, "Home · my trainees", "Maya Brooks's trainees: m shows all of the company's.")
	checkTrainerParam(t, "after :mine", s.rec.take(), "1")
	d.press("?")
	d.expect(t, "show all trainees")
}

// checkTrainerParam fails unless every stats and search request of reqs
// has trainerId want ("": none), and there is one of each.
func checkTrainerParam(t *testing.T, when string, reqs []request, want string) {
	t.Helper()
	seen := map[string]bool{}
	for _, r := range reqs {
		if r.Path != api.PathStats && r.Path != api.PathTrainees+"/search" {
			continue
		}
		seen[r.Path] = true
		if got := r.Query["trainerId"]; got != want {
			t.Errorf("%s: %s with trainerId %q, want %q", when, r.Path, got, want)
		}
	}
	if len(seen) != 2 {
		t.Errorf("%s: not both the stats and the search were read: %v", when, seen)
	}
}

// A key limited to its trainer's trainees cannot show all: :mine says so
// and sends nothing (m is not offered). Another key has no m: :mine says
// why.
func TestMineCannotWidenALimitedKey(t *testing.T) {
	s := newServer(t)
	d := newDriver(t, s.client(s.Key), Options{NoColor: true, Start: "home", Key: coachKey(2, "Tomás Rivera", true)})
	s.rec.take()
	d.send(kp(":"))
	d.typeText("mine")
	d.press("enter")
	d.expect(t, "This key is limited to Tomás Rivera's trainees (own trainees only): it cannot", "Home · my trainees")
	if reqs := s.rec.take(); len(reqs) != 0 {
		t.Errorf("m sent %v", reqs)
	}
	d = newDriver(t, s.client(s.Key), Options{NoColor: true, Start: "home"})
	d.send(kp(":"))
	d.typeText("mine")
	d.press("enter")
	d.expect(t, "This key is not bound to a trainer")
	d.expectNot(t, "my trainees", "Home ·")
}

// With mine on, live mode keeps another trainer's trainee out of the
// list, and takes out one given to another trainer.
func TestMineListKeepsToTheTrainer(t *testing.T) {
	m := New(nil, Options{Key: coachKey(1, "Maya Brooks", false), Today: func() api.Date { return testToday }})
	l := &m.list
	l.Loaded = true
	one, two := int64(1), int64(2)
	mine := &api.Trainee{ID: 5, Name: "Ada", Enabled: true, TrainerID: &one}
	theirs := &api.Trainee{ID: 6, Name: "Bo", Enabled: true, TrainerID: &two}
	l.LiveChange(mine, true)
	l.LiveChange(theirs, true)
	if len(l.Items) != 1 || l.Items[0].ID != 5 {
		t.Fatalf("the list holds %v", names(l.Items))
	}
	moved := *mine
	moved.TrainerID = &two
	l.LiveChange(&moved, false)
	if len(l.Items) != 0 {
		t.Fatalf("a trainee given to another trainer stays: %v", names(l.Items))
	}
	m.Mine = 0
	l.LiveChange(theirs, true)
	if len(l.Items) != 1 {
		t.Fatalf("all trainees: %v", names(l.Items))
	}
}

// A key limited to its trainer's trainees is refused the company's
// webhooks and automations: their pages say why instead of loading (no
// request is sent), and the key map says they need a company-wide key
// (the footer leaves them out).
func TestLimitedKeyOnTheCompanysPages(t *testing.T) {
	s := newServer(t)
	d := newDriver(t, s.client(s.Key), Options{NoColor: true, Start: "home", Key: coachKey(1, "Maya Brooks", true)})
	d.send(tea.WindowSizeMsg{Width: 80, Height: 24})
	d.expectNot(t, "w webhooks", "a automations")
	d.press("?")
	d.expect(t, "webhooks (need a company-wide key)", "automations (need a company-wide key)")
	d.press("?")
	s.rec.take()
	for _, c := range []struct{ key, title string }{{"w", "Webhooks need a company-wide key."}, {"a", "Automations need a company-wide key."}} {
		d.press(c.key)
		d.expect(t, c.title, "This key acts for Maya Brooks's trainees only (own trainees only)")
		d.expectNot(t, "Loading")
		checkFits(t, d, 80, 24, c.key)
		d.press("esc")
	}
	if reqs := s.rec.take(); len(reqs) != 0 {
		t.Errorf("sent %v", reqs)
	}
	d.press("l", "?")
	d.expect(t, "webhooks (need a company-wide key)")
}

// A key limited to its trainer's trainees is not offered m (it cannot
// show all): the dashboard's second line and the key maps leave it out,
// and m does nothing; the title shows the limit.
func TestLimitedKeyIsNotOfferedAll(t *testing.T) {
	s := newServer(t)
	d := newDriver(t, s.client(s.Key), Options{NoColor: true, Start: "home", Key: coachKey(2, "Tomás Rivera", true)})
	d.send(tea.WindowSizeMsg{Width: 80, Height: 24})
	d.expect(t, "Home · my trainees", "What needs attention among my trainees · enter opens a count",
		"Demo Fitness · Tomás Rivera (full, own trainees)")
	d.expectNot(t, "m shows")
	s.rec.take()
	d.press("m")
	d.expectNot(t, "cannot show all")
	if reqs := s.rec.take(); len(reqs) != 0 {
		t.Errorf("m sent %v", reqs)
	}
	d.press("?")
	d.expectNot(t, "show all trainees")
	d.press("?", "l", "?")
	d.expectNot(t, "show all trainees")
}

// The list of my trainees spends no column on the trainer (every row's is
// the same); all trainees show it again, and the room goes to the other
// columns.
func TestMyTraineesHaveNoTrainerColumn(t *testing.T) {
	s := newServer(t)
	d := newDriver(t, s.client(s.Key), Options{NoColor: true, Start: "list", Key: coachKey(1, "Maya Brooks", false)})
	d.send(tea.WindowSizeMsg{Width: 80, Height: 24})
	header := func() string { return strings.Split(d.screen(), "\n")[2] }
	d.expect(t, "My trainees")
	if h := header(); strings.Contains(h, "Trainer") || !strings.Contains(h, "Phone") {
		t.Errorf("my trainees' header: %q", h)
	}
	d.expectNot(t, "Maya B")
	checkFits(t, d, 80, 24, "my trainees")
	d.press("m")
	d.expect(t, "All trainees")
	if h := header(); !strings.Contains(h, "Trainer") {
		t.Errorf("all trainees' header: %q", h)
	}
	d.press("m")
	if h := header(); strings.Contains(h, "Trainer") {
		t.Errorf("my trainees' header again: %q", h)
	}
}

// A key limited to its trainer's trainees, at 80x24 and 120x35: the
// dashboard (the limit in the title, no m), the list of my trainees (no
// trainer column), the webhooks page (why it needs a company-wide key).
func TestGoldenLimitedKey(t *testing.T) {
	s := newServer(t)
	for _, size := range [][2]int{{80, 24}, {120, 35}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			d := newDriver(t, s.client(s.Key), Options{NoColor: true, Start: "home", Key: coachKey(1, "Maya Brooks", true)})
			d.send(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
			shot := shooter(t, d, "limited", size)
			shot("home")
			shot("list", "l")
			shot("webhooks", "w")
		})
	}
}
