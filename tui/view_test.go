package tui

import (
	"context"
	"image/color"
	"regexp"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/client"
	"github.com/traineed/traineed/tui/components/requests"
	"github.com/traineed/traineed/tui/internal/common"
	"github.com/traineed/traineed/tui/pages/trainee"
)

// checkFits fails when a line of the view is wider than w or the view is
// not h lines.
func checkFits(t *testing.T, d *driver, w, h int, where string) {
	t.Helper()
	lines := strings.Split(d.m.View().Content, "\n")
	if len(lines) != h {
		t.Errorf("%s at %dx%d: %d lines", where, w, h, len(lines))
	}
	for i, l := range lines {
		if n := ansi.StringWidth(l); n > w {
			t.Errorf("%s at %dx%d: line %d is %d wide: %q", where, w, h, i+1, n, ansi.Strip(l))
		}
	}
}

// Every screen fits 80x24 and follows a resize.
func TestEveryScreenFitsTheTerminal(t *testing.T) {
	s := newServer(t)
	c := s.client(s.Key)
	d := newDriver(t, c, Options{})
	for _, size := range [][2]int{{80, 24}, {120, 40}, {60, 16}, {200, 50}} {
		w, h := size[0], size[1]
		d.send(tea.WindowSizeMsg{Width: w, Height: h})
		checkFits(t, d, w, h, "list")
		d.press("?")
		checkFits(t, d, w, h, "help")
		d.press("?")
		d.press("enter")
		for tab := range trainee.TabCount {
			d.press(string(rune('1' + tab)))
			checkFits(t, d, w, h, trainee.TabNames[tab])
		}
		d.press("e")
		checkFits(t, d, w, h, "edit form")
		d.press("esc", "d")
		checkFits(t, d, w, h, "confirm")
		d.press("n", "esc")
	}
	// The list shows more rows on a taller terminal, and drops columns on a
	// narrow one.
	d.send(tea.WindowSizeMsg{Width: 80, Height: 24})
	if d.m.list.RowsH != 19 {
		t.Errorf("%d rows at 80x24", d.m.list.RowsH)
	}
	// At 80 columns the id (two trainees of one name told apart) comes
	// before the phone, which shows from 85.
	d.expect(t, " ID", "Trainer")
	d.expectNot(t, "Phone")
	d.send(tea.WindowSizeMsg{Width: 100, Height: 24})
	d.expect(t, " ID", "Phone", "Trainer")
	d.send(tea.WindowSizeMsg{Width: 60, Height: 24})
	d.expectNot(t, "Phone", "Trainer")
	d.expect(t, " ID", "Name", "E-mail", "Status", "Expires")
}

var colourSGR = regexp.MustCompile(`\x1b\[[0-9;]*(3[0-9]|4[0-9]|9[0-7]|10[0-7])[;m]`)

func TestNoColor(t *testing.T) {
	s := newServer(t)
	c := s.client(s.Key)
	for _, noColor := range []bool{false, true} {
		d := newDriver(t, c, Options{NoColor: noColor})
		views := []string{d.m.View().Content}
		d.press("enter", "2")
		views = append(views, d.m.View().Content)
		d.press("4")
		views = append(views, d.m.View().Content)
		coloured := false
		for _, v := range views {
			coloured = coloured || colourSGR.MatchString(v)
		}
		if coloured == noColor {
			t.Errorf("NoColor %v: colour codes present: %v", noColor, coloured)
		}
		// The active tab shows without colour too.
		d.expect(t, "[Nutrition]")
	}
}

// The theme follows the terminal's background.
func TestLightAndDarkBackground(t *testing.T) {
	s := newServer(t)
	d := newDriver(t, s.client(s.Key), Options{})
	dark := d.m.View().Content
	d.send(tea.BackgroundColorMsg{Color: color.RGBA{R: 250, G: 250, B: 250, A: 255}})
	if d.m.IsDark {
		t.Fatal("a white background is dark")
	}
	light := d.m.View().Content
	if light == dark || ansi.Strip(light) != ansi.Strip(dark) {
		t.Fatal("the light theme changed nothing, or changed the text")
	}
	d.send(tea.BackgroundColorMsg{Color: color.RGBA{R: 10, G: 10, B: 10, A: 255}})
	if !d.m.IsDark || d.m.View().Content != dark {
		t.Fatal("back on a dark background, not the dark theme")
	}
}

func TestHelpAndQuit(t *testing.T) {
	s := newServer(t)
	d := newDriver(t, s.client(s.Key), Options{})
	d.expect(t, "enter open", "/ search", "? help")
	d.press("?")
	d.expect(t, "Keys", "reverse order", "S settings", "new trainee", "delete", "restore", "reload", "first", "last", "page down")
	d.press("esc")
	d.expectNot(t, "reverse order")
	// In the search, q is a letter; outside it quits.
	d.press("/", "q")
	if d.quit || d.m.list.Input.Value() != "q" {
		t.Fatalf("q in the search: quit %v, value %q", d.quit, d.m.list.Input.Value())
	}
	d.press("esc", "q")
	if !d.quit {
		t.Fatal("q did not quit")
	}
	d2 := newDriver(t, s.client(s.Key), Options{})
	d2.press("n", "ctrl+c")
	if !d2.quit {
		t.Fatal("ctrl+c did not quit from the form")
	}
}

// The trainee screen's help names what ←/→ does on each tab.
func TestTraineeHelpFollowsTheTab(t *testing.T) {
	s := newServer(t)
	c := s.client(s.Key)
	d := newDriver(t, c, Options{})
	d.send(tea.WindowSizeMsg{Width: 160, Height: 30})
	d.press("enter", "2")
	d.expect(t, "←/→ range")
	d.press("3")
	d.expect(t, "←/→ type")
	d.press("4")
	d.expect(t, "←/→ day")
	d.press("?")
	d.expect(t, "previous day", "next day", "today", "restore", "reload")
	d.press("?", "1")
	d.expectNot(t, "←/→")
}

func TestVimKeysMoveTheCursor(t *testing.T) {
	s := newServer(t)
	d := newDriver(t, s.client(s.Key), Options{})
	d.press("j", "j", "down")
	if d.m.list.Cursor != 3 {
		t.Fatalf("cursor %d", d.m.list.Cursor)
	}
	d.press("k", "up")
	if d.m.list.Cursor != 1 {
		t.Fatalf("cursor %d", d.m.list.Cursor)
	}
	d.press("G") // the real last row: the next page is read and followed
	if len(d.m.list.Items) <= DefaultPageSize || d.m.list.Cursor != len(d.m.list.Items)-1 {
		t.Fatalf("cursor %d of %d", d.m.list.Cursor, len(d.m.list.Items))
	}
	d.press("g")
	if d.m.list.Cursor != 0 || d.m.list.Offset != 0 {
		t.Fatalf("cursor %d offset %d", d.m.list.Cursor, d.m.list.Offset)
	}
	d.press("pgdown")
	if d.m.list.Cursor != d.m.list.RowsH-1 {
		t.Fatalf("pgdown: cursor %d", d.m.list.Cursor)
	}
	// The selected row is the one highlighted.
	sel := d.m.list.Selected()
	for _, l := range strings.Split(d.m.View().Content, "\n") {
		if strings.Contains(ansi.Strip(l), head(sel.Name, 10)) && !strings.Contains(l, "\x1b[") {
			t.Fatalf("selected row not highlighted: %q", l)
		}
	}
}

// blockingClient holds every search until released.
type blockingClient struct {
	common.Client
	release chan struct{}
}

func (c *blockingClient) SearchTrainees(ctx context.Context, p client.SearchParams, _ ...client.RequestOption) (*api.TraineePage, error) {
	select {
	case <-c.release:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return c.Client.SearchTrainees(ctx, p)
}

// spawner runs each command it is given on a goroutine of its own (each
// of a batch too) and sends its message to msgs.
func spawner(msgs chan<- tea.Msg) func(tea.Cmd) {
	var spawn func(tea.Cmd)
	spawn = func(cmd tea.Cmd) {
		if cmd == nil {
			return
		}
		go func() {
			msg := cmd()
			if b, ok := msg.(tea.BatchMsg); ok {
				for _, c := range b {
					spawn(c)
				}
				return
			}
			msgs <- msg
		}()
	}
	return spawn
}

// A slow server never freezes the screen: keys are handled and frames drawn
// while the request waits, with a spinner; the answer lands when it comes.
func TestSlowServerNeverBlocksTheScreen(t *testing.T) {
	s := newServer(t)
	c := &blockingClient{Client: s.client(s.Key), release: make(chan struct{})}
	m := New(c, Options{Today: func() api.Date { return testToday }, Debounce: -1, Start: "list", liveOff: true})
	msgs := make(chan tea.Msg, 64)
	spawn := spawner(msgs)
	spawn(m.Init())
	done := make(chan struct{})
	go func() {
		defer close(done)
		for _, k := range []string{"down", "?", "?", "2"} {
			_, cmd := m.Update(kp(k))
			spawn(cmd)
			_ = m.View()
		}
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("keys were not handled while the search waited")
	}
	if !m.Busy() || !strings.Contains(ansi.Strip(m.View().Content), "Loading trainees…") {
		t.Fatalf("no loading state:\n%s", ansi.Strip(m.View().Content))
	}
	close(c.release)
	// Deliver what comes: the first search (live) was superseded by "2"
	// (active), whose answer is the one kept.
	deadline := time.After(10 * time.Second)
	for m.Busy() {
		select {
		case msg := <-msgs:
			if r, ok := msg.(requests.ResultMsg); ok {
				m.Update(r)
			}
		case <-deadline:
			t.Fatal("the searches never answered")
		}
	}
	if m.list.Status != 1 || !m.list.Loaded || len(m.list.Items) == 0 {
		t.Fatalf("status %d loaded %v items %d", m.list.Status, m.list.Loaded, len(m.list.Items))
	}
	for _, tr := range m.list.Items {
		if tr.Status(testToday) != api.StatusActive {
			t.Fatalf("%s is %s in the active tab", tr.Name, tr.Status(testToday))
		}
	}
}
