package tui

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/client"
)

// eventID is a random event id (or its start), written evt_x…x in the
// golden screens; stamp an instant the automations' runs take from the
// wall clock, not the server's.
var (
	eventID = regexp.MustCompile(`evt_[A-Za-z0-9]+`)
	stamp   = regexp.MustCompile(`\d{4}-\d{2}-\d{2} \d{2}:\d{2}`)
	// recentAt is when a recent change happened: the feed's events are
	// stamped with the wall clock.
	recentAt = regexp.MustCompile(`(?m)^  (\d\d:\d\d |\d\d [A-Z][a-z]{2}) (created|updated|deleted|restored)`)
)

var update = flag.Bool("update", false, "rewrite the golden screens in testdata/")

// golden compares the screen, without styling and trailing blanks, with
// testdata/name.golden.
func golden(t *testing.T, d *driver, name string) {
	t.Helper()
	var lines []string
	for _, l := range strings.Split(d.screen(), "\n") {
		lines = append(lines, strings.TrimRight(l, " "))
	}
	got := eventID.ReplaceAllStringFunc(strings.Join(lines, "\n")+"\n", func(id string) string {
		return "evt_" + strings.Repeat("x", len(id)-len("evt_"))
	})
	got = stamp.ReplaceAllString(got, "YYYY-MM-DD hh:mm")
	got = recentAt.ReplaceAllString(got, "  dd Mon $2")
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./tui -run Golden -update)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from %s (if the change is meant: go test ./tui -run Golden -update)\n--- got\n%s--- want\n%s",
			name, path, got, want)
	}
}

// shooter is shot for the golden screens of d at size: press keys, then
// compare the screen with testdata/prefix-name-WxH.golden and check that
// it fits.
func shooter(t *testing.T, d *driver, prefix string, size [2]int) func(name string, keys ...string) {
	return func(name string, keys ...string) {
		t.Helper()
		d.press(keys...)
		golden(t, d, fmt.Sprintf("%s-%s-%dx%d", prefix, name, size[0], size[1]))
		checkFits(t, d, size[0], size[1], name)
	}
}

// The screens at 80x24 and 120x35 over the demo data: what a person
// sees, character for character, on every screen of the TUI. The demo data
// is deterministic for the test's clock; event ids (random) are written
// evt_x…x.
func TestGoldenScreens(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {120, 35}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			// A server of its own: the changes one size's screens make
			// (a bulk extend's updates, in no fixed order) are not in the
			// other's recent changes.
			s := newServer(t)
			c := s.client(s.Key)
			ctx := context.Background()
			url := "http://127.0.0.1:9/hook"
			_, err := c.CreateWebhook(ctx, client.WebhookInput{URL: &url})
			must(t, err)
			_, err = c.CreateAutomation(ctx, client.AutomationParams{Name: api.Val("CRM new client"), Trigger: api.Val(client.AutomationTrigger{Type: api.Val("TRAINEE_CREATED")}),
				ActionType: api.Val("WEBHOOK"), Action: api.Val(client.AutomationAction{URL: api.Val("http://127.0.0.1:9/crm")})})
			must(t, err)
			_, err = c.CreateTrainee(ctx, api.CreateRequest{Name: "Golden Newcomer", Email: "golden.newcomer@example.com", Password: "long enough"})
			must(t, err)
			key, err := c.CurrentKey(ctx) // the title names it
			must(t, err)
			d := newDriver(t, c, Options{NoColor: true, background: firstFeedOnly(), Start: "home", Key: key})
			d.send(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
			shot := func(name string, keys ...string) {
				t.Helper()
				d.press(keys...)
				golden(t, d, fmt.Sprintf("%s-%dx%d", name, size[0], size[1]))
			}
			typed := func(name, text string) {
				t.Helper()
				d.typeText(text)
				shot(name)
			}
			shot("home")
			shot("list", "l")
			shot("keys", "?")
			shot("marked", "?", "space", "space")
			shot("actions", "x")
			typed("actions-typed", "extend 30")
			shot("bulk-confirm", "enter")
			shot("command", "n", ":", "a", "u")
			d.press("esc", "esc", "/")
			typed("search", "park")
			shot("profile", "enter", "enter")
			for i, tab := range []string{"weight", "measurements", "nutrition", "steps"} {
				shot(tab, fmt.Sprint(i+2))
			}
			shot("edit", "e")
			phone := fmt.Sprintf("+4477009%05d", size[0])
			_, err = s.direct().UpdateTrainee(ctx, 1, api.TraineePatch{PhoneNumber: api.Val(phone)})
			must(t, err)
			d.typeText("x")
			shot("conflict", "ctrl+s")
			shot("delete", "d", "d")
			shot("webhooks", "n", "esc", "w")
			shot("automations", "esc", "a")
			shot("runs", "enter")
			d.press("H", "l", "space", "space", ":")
			d.typeText("extend 30")
			d.press("enter", "y")
			shot("bulk-result")
		})
	}
}

// noFeed leaves live mode on without polling the feed: the screens show
// "● auto-refresh" and nothing changes them.
func noFeed(tea.Cmd) tea.Cmd { return nil }

// firstFeedOnly lets the feed's first read (the newest events) through
// and no poll after it: the recent changes show what the test did before
// the TUI opened, and nothing else moves.
func firstFeedOnly() func(tea.Cmd) tea.Cmd {
	n := 0
	return func(cmd tea.Cmd) tea.Cmd {
		n++
		if n > 1 {
			return nil
		}
		return cmd
	}
}
