package tui

import (
	"fmt"
	"testing"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/tui/components/keymap"
)

// inHelp reports whether an enabled binding of hk (its short line or its
// full help) matches k.
func inHelp(hk keymap.HelpKeys, k tea.KeyPressMsg) bool {
	all := append([]key.Binding(nil), hk.ShortHelp()...)
	for _, col := range hk.FullHelp() {
		all = append(all, col...)
	}
	for _, b := range all {
		if b.Enabled() && key.Matches(k, b) {
			return true
		}
	}
	return false
}

// candidateKeys are the keys a user may press.
func candidateKeys(printable bool) []string {
	keys := []string{"up", "down", "left", "right", "pgup", "pgdown", "home", "end", "enter", "esc", "tab",
		"shift+tab", "delete", "backspace", "f5"}
	for c := 'a'; c <= 'z'; c++ {
		if c != 'c' && c != 'm' && c != 'i' { // ctrl+c quits; ctrl+m and ctrl+i are enter and tab
			keys = append(keys, "ctrl+"+string(c))
		}
	}
	if printable {
		for _, r := range "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/?-=+., " {
			keys = append(keys, string(r))
		}
	}
	return keys
}

// fingerprint is what a key press could change that a user sees or that
// moves them: the screen and where they are.
func fingerprint(d *driver) string {
	m := d.m
	return fmt.Sprint(m.screen, m.trainee.Tab, m.trainee.Scroll, m.list.Cursor, m.list.Offset, m.list.Status,
		m.list.Sort, m.list.SortDesc, m.list.Searching, fmt.Sprintf("%T", m.modal), m.form.Focus, m.form.Discarding,
		m.home.Cursor, len(m.list.Marks), m.Live.On, m.settings.Section, m.settings.Cursor, m.Mine,
		d.quit, "\n", d.screen())
}

// Every key a screen reacts to is in that screen's help (the help is the
// screen's key map): a key that changes anything while the help does not
// name it is drift. Each key not in the help is pressed on the screen and
// must change nothing.
func TestHelpNamesEveryKeyTheScreenUses(t *testing.T) {
	s := newServer(t)
	for _, st := range []struct {
		name      string
		setup     []string
		printable bool // printable keys are commands here, not text
	}{
		{"home", []string{"H"}, true},
		{"list", nil, true},
		{"marked", []string{"space"}, true},
		{"command line", []string{":"}, false},
		{"search", []string{"/"}, false},
		{"profile", []string{"enter"}, true},
		{"weight", []string{"enter", "2"}, true},
		{"measurements", []string{"enter", "3"}, true},
		{"nutrition", []string{"enter", "4"}, true},
		{"steps", []string{"enter", "5"}, true},
		{"form", []string{"n"}, false},
		{"confirm", []string{"d"}, true},
		{"discard", []string{"n", "x", "esc"}, true},
	} {
		t.Run(st.name, func(t *testing.T) {
			d := newDriver(t, s.client(s.Key), Options{Today: func() api.Date { return testToday }})
			checkHelpNamesKeys(t, d, st.name, st.setup, st.printable)
		})
	}
}

// checkHelpNamesKeys presses setup, then every key the help of the screen
// does not name: none may change anything.
func checkHelpNamesKeys(t *testing.T, d *driver, name string, setup []string, printable bool) {
	t.Helper()
	d.send(tea.WindowSizeMsg{Width: 100, Height: 30})
	d.settle()
	d.press(setup...)
	hk := d.m.currentHelp()
	for _, k := range candidateKeys(printable) {
		msg := kp(k)
		if inHelp(hk, msg) {
			continue
		}
		before := fingerprint(d)
		d.send(msg)
		d.settle()
		if after := fingerprint(d); after != before {
			t.Errorf("%s: %q changes the screen but the help does not name it", name, k)
			return // the state moved on: later keys would be judged elsewhere
		}
	}
}

// The same for the Settings page (each section, its dialogs, a key that
// is not an admin key) and for a trainer's key on the dashboard and the
// list (m).
func TestSettingsHelpNamesEveryKeyTheScreenUses(t *testing.T) {
	s := newServer(t)
	coach := coachKey(1, "Maya Brooks", false)
	for _, st := range []struct {
		name      string
		key       *api.CurrentKey
		setup     []string
		printable bool
	}{
		{"keys", adminKey, []string{"S"}, true},
		{"trainers", adminKey, []string{"S", "2"}, true},
		{"company", adminKey, []string{"S", "3"}, true},
		{"not an admin key", coach, []string{"S"}, true},
		{"trainer's home", coach, nil, true},
		{"trainer's list", coach, []string{"l"}, true},
		{"limited key's home", coachKey(1, "Maya Brooks", true), nil, true},
		{"limited key's webhooks", coachKey(1, "Maya Brooks", true), []string{"w"}, true},
		{"question", adminKey, []string{"S", "down", "r"}, true},
		{"disabled key", adminKey, []string{"S", "down", "e", "y"}, true},
		{"typed question", adminKey, []string{"S", "d"}, false},
		{"picker", adminKey, []string{"S", "2", "r"}, true},
		{"form", adminKey, []string{"S", "n"}, false},
		{"notice", adminKey, []string{"S", "r", "y"}, true},
	} {
		t.Run(st.name, func(t *testing.T) {
			f := newAdminFake(s.client(s.Key))
			d := newDriver(t, f, Options{Start: "home", Key: st.key})
			checkHelpNamesKeys(t, d, st.name, st.setup, st.printable)
		})
	}
}
