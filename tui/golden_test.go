package tui

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
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
	got := strings.Join(lines, "\n") + "\n"
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

// The screens at 80x24 over the demo data: what a person sees, character
// for character. The demo data is deterministic for the test's clock.
func TestGoldenScreens(t *testing.T) {
	s := newServer(t)
	d := newDriver(t, s.client(s.Key), Options{NoColor: true, background: noFeed})
	d.send(tea.WindowSizeMsg{Width: 80, Height: 24})
	golden(t, d, "list")
	d.press("enter", "tab")
	golden(t, d, "weight")
	d.press("4")
	golden(t, d, "nutrition")
	d.press("e")
	golden(t, d, "edit")
}

// noFeed leaves live mode on without polling the feed: the screens show
// "● live" and nothing changes them.
func noFeed(tea.Cmd) tea.Cmd { return nil }
