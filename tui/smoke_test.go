package tui

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/charmbracelet/x/ansi"
)

// tmuxSession is a detached tmux session on a private socket.
type tmuxSession struct {
	t      *testing.T
	socket string
	name   string
}

func (s *tmuxSession) tmux(args ...string) (string, error) {
	out, err := exec.Command("tmux", append([]string{"-L", s.socket}, args...)...).CombinedOutput()
	return string(out), err
}

func (s *tmuxSession) capture() string {
	out, err := s.tmux("capture-pane", "-p", "-t", s.name)
	if err != nil {
		return "(capture failed: " + err.Error() + ": " + out + ")"
	}
	return out
}

func (s *tmuxSession) keys(keys ...string) {
	s.t.Helper()
	if out, err := s.tmux(append([]string{"send-keys", "-t", s.name}, keys...)...); err != nil {
		s.t.Fatalf("send-keys %q: %v: %s", keys, err, out)
	}
}

// waitFor polls the pane until every part shows, or fails at the deadline.
func (s *tmuxSession) waitFor(what string, parts ...string) string {
	s.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		screen := s.capture()
		ok := true
		for _, p := range parts {
			ok = ok && strings.Contains(screen, p)
		}
		if ok {
			return screen
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("%s: the screen never showed %q:\n%s", what, parts, screen)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// buildBinaries builds traineed and traineectl into dir.
func buildBinaries(t *testing.T, dir string) {
	t.Helper()
	cmd := exec.Command("go", "build", "-o", dir+string(os.PathSeparator), "../cmd/traineed", "../cmd/traineectl")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0") // as released, and as .ci/run's other builds
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
}

// startDemoServer runs `traineed serve --demo` on a free port and returns
// its base URL and the demo key.
func startDemoServer(t *testing.T, dir string) (baseURL, key string) {
	t.Helper()
	srv := exec.Command(filepath.Join(dir, "traineed"), "serve", "--demo", "--addr", "127.0.0.1:0",
		"--db", "sqlite:"+filepath.Join(dir, "demo.db"), "--log-format", "json")
	stdout, err := srv.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr, err := srv.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = srv.Process.Kill()
		_ = srv.Wait()
	})
	keyc, addrc := make(chan string, 1), make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		if sc.Scan() { // "API key for Demo Fitness: pk_..."
			line := sc.Text()
			keyc <- strings.TrimSpace(line[strings.LastIndex(line, " ")+1:])
		}
	}()
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			var line struct{ Msg, Addr string }
			if json.Unmarshal(sc.Bytes(), &line) == nil && line.Msg == "listening" {
				addrc <- line.Addr
			}
		}
	}()
	deadline := time.After(30 * time.Second)
	for key == "" || baseURL == "" {
		select {
		case key = <-keyc:
		case a := <-addrc:
			baseURL = "http://" + a
		case <-deadline:
			t.Fatal("traineed serve --demo did not start")
		}
	}
	return baseURL, key
}

// The TUI in a real terminal at 80x24: tmux runs `traineectl tui`
// against `traineed serve --demo`; the test visits every screen (home,
// the Settings page's sections, the list, a search, every tab of a trainee, the edit form, the key map,
// webhooks, automations and runs, the command line, marks and the bulk
// actions' line) and quits, reading the screen as a person would see it.
// On every screen no line is cut mid-word without "…" and the footer is
// whole.
func TestSmokeInTmux(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	dir := t.TempDir()
	buildBinaries(t, dir)
	baseURL, key := startDemoServer(t, dir)

	req, err := http.NewRequest("POST", baseURL+"/public-api/automations", strings.NewReader(
		`{"name": "Smoke idle", "trigger": {"type": "INACTIVE", "days": 14}, "actionType": "DISABLE_TRAINEE", "enabled": false}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-API-Key", key)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("create an automation: %v %v", res, err)
	}
	res.Body.Close()

	var b [6]byte
	_, _ = rand.Read(b[:])
	s := &tmuxSession{t: t, socket: "traineed-tui-" + hex.EncodeToString(b[:]), name: "smoke"}
	t.Cleanup(func() { _, _ = s.tmux("kill-server") })
	command := fmt.Sprintf("env HOME=%s XDG_CONFIG_HOME=%s TRAINEECTL_BASE_URL=%s TRAINEECTL_API_KEY=%s %s tui",
		dir, dir, baseURL, key, filepath.Join(dir, "traineectl"))
	if out, err := s.tmux("new-session", "-d", "-s", s.name, "-x", "80", "-y", "24", command); err != nil {
		t.Fatalf("tmux new-session: %v: %s", err, out)
	}
	// remain-on-exit keeps the pane after the program ends, so that its
	// last screen can be read.
	_, _ = s.tmux("set-option", "-t", s.name, "remain-on-exit", "on")

	// see waits for the parts and checks the screen's lines.
	see := func(what string, parts ...string) string {
		t.Helper()
		screen := s.waitFor(what, parts...)
		checkLines(t, what, screen, 80)
		return screen
	}
	see("home", "Home", "active", "expired", "deleted", "Recent changes", "● auto-refresh", "enter open", "Demo Fitness · demo")
	s.keys("S")
	see("settings", "Settings", "[Keys]", "* demo", "admin", "n new key", "r rotate", "d revoke")
	s.keys("2")
	see("settings' trainers", "[Trainers]", "Maya Brooks", "TRAINEES", "d deactivate")
	s.keys("3")
	see("settings' company", "[Company]", "Europe/London", "e edit")
	s.keys("Escape")
	see("home again", "Home", "Recent changes")
	s.keys("l")
	see("first page", "Trainees", "[live]", " of ", "Ada Park", "Zoë Martin", "w webhooks", "a automations")
	s.keys("/")
	for _, r := range "park" {
		s.keys(string(r))
	}
	screen := see("search", "/ park", "1 of 1", "Ada Park")
	if strings.Contains(screen, "Zoë Martin") {
		t.Fatalf("the search did not narrow the list:\n%s", screen)
	}
	s.keys("Enter")
	see("search kept", "(esc clears)")
	s.keys("?")
	see("key map", "Keys", "new trainee", "webhooks", "automations", "command")
	s.keys("?")
	s.keys("Enter")
	see("trainee", "[Profile]", "Ada Park", "ada.park@example", "Trainee id")
	s.keys("Tab")
	see("weight tab", "[Weight]", "[3M]")
	see("weight data", weightTabParts...)
	for i, tab := range []string{"Measurements", "Nutrition", "Steps"} {
		s.keys(fmt.Sprint(i + 3))
		see(tab, "["+tab+"]")
	}
	s.keys("e")
	see("edit form", "Edit Ada Park", "Trainer", "✓ ", "ctrl+s save")
	s.keys("Escape")
	see("back to the trainee", "[Steps]", "Cancelled")
	s.keys("Escape")
	see("back to the list", "[live]", "/ park")
	s.keys("w")
	see("webhooks screen", "Webhooks", "No webhooks")
	s.keys("Escape")
	see("back to the list from the webhooks", "[live]", "/ park")
	s.keys("a")
	see("automations", "Automations", "1 automation", "Smoke idle", "INACTIVE 14d", "never", "ACTION")
	s.keys("Enter")
	see("runs", "Runs of Smoke idle", "It has not fired yet.")
	s.keys("Escape")
	see("automations again", "1 automation", "enter runs")
	s.keys("Escape")
	see("back to the list again", "[live]", "/ park")
	s.keys("Escape")
	see("the search cleared", "[live]", "Zoë Martin")
	s.keys("Space", "Space")
	see("two marked", "2 marked", "x act")
	s.keys("x")
	see("bulk actions", ":", "extend", "expire-on", "trainer", "delete", "restore")
	s.keys("Escape")
	see("bulk line closed", "2 marked")
	s.keys(":")
	s.keys("w", "e", "b", "Tab")
	see("command completion", ":webhooks")
	s.keys("Enter")
	see("webhooks by command", "Webhooks", "No webhooks")
	s.keys(":", "h", "o", "Tab", "Enter")
	see("home by command", "Home", "Recent changes")
	s.keys("q")
	deadline := time.Now().Add(10 * time.Second)
	for {
		out, _ := s.tmux("list-panes", "-t", s.name, "-F", "#{pane_dead}")
		if strings.TrimSpace(out) == "1" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("q did not quit:\n%s", s.capture())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// checkLines fails when a line of screen (w columns wide) runs to the
// last column and ends inside a word without "…" (the terminal cut it),
// or when the footer (the last line) is cut.
func checkLines(t *testing.T, what, screen string, w int) {
	t.Helper()
	lines := strings.Split(strings.TrimRight(screen, "\n"), "\n")
	for i, l := range lines {
		l = strings.TrimRight(l, " ")
		if ansi.StringWidth(l) < w {
			continue
		}
		last := []rune(l)[len([]rune(l))-1]
		if unicode.IsLetter(last) || unicode.IsDigit(last) {
			t.Errorf("%s: line %d is cut mid-word without …: %q", what, i+1, l)
		}
	}
	footer := strings.TrimSpace(lines[len(lines)-1])
	if strings.HasSuffix(footer, "…") || footer == "" {
		t.Errorf("%s: the footer is cut: %q\n%s", what, footer, screen)
	}
}

// weightTabParts is what the Weight tab shows of the demo data.
var weightTabParts = []string{"First", "Last", "Min", "Max", "Change", "days with a weight", "└"}
