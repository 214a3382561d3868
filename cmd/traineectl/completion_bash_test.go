package main_test

import (
	"crypto/rand"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// bashCompletionPackage is the bash-completion package's loader, where
// Debian and most distributions put it.
const bashCompletionPackage = "/usr/share/bash-completion/bash_completion"

// TestBashCompletionInRealBash types TAB in a real interactive bash under
// tmux, with the script of completions/ sourced, without and with the
// bash-completion package: commands, flags' values and files (create -f
// through the script's stand-in for the package's _filedir) complete, and
// nothing says "command not found".
func TestBashCompletionInRealBash(t *testing.T) {
	if testing.Short() {
		t.Skip("builds traineectl and runs bash under tmux")
	}
	for _, tool := range []string{"tmux", "bash"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed", tool)
		}
	}
	dir := t.TempDir()
	bin := filepath.Dir(traineectlBinary(t))
	script, err := filepath.Abs("../../completions/traineectl.bash")
	if err != nil {
		t.Fatal(err)
	}
	// Read here too, so that go test's cache knows the result depends on it.
	if _, err := os.ReadFile(script); err != nil {
		t.Fatal(err)
	}
	work := filepath.Join(dir, "work")
	for _, f := range []string{"clients.csv", "members.jsonl", "notes.txt"} {
		if err := os.MkdirAll(work, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(work, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, withPackage := range []bool{false, true} {
		name := "without bash-completion"
		if withPackage {
			name = "with bash-completion"
		}
		t.Run(name, func(t *testing.T) {
			if withPackage {
				if _, err := os.Stat(bashCompletionPackage); err != nil {
					t.Skipf("the bash-completion package is not installed (%s)", bashCompletionPackage)
				}
			}
			rc := filepath.Join(dir, "rc-"+strings.ReplaceAll(name, " ", "-"))
			var b strings.Builder
			b.WriteString("PS1='ready$ '\nexport PATH=" + bin + ":$PATH\ncd " + work + "\n")
			b.WriteString("export TRAINEECTL_BASE_URL=http://127.0.0.1:1 TRAINEECTL_API_KEY=pk_" + strings.Repeat("x", 40) + "\n")
			if withPackage {
				b.WriteString("source " + bashCompletionPackage + "\n")
			} else {
				b.WriteString("declare -F _filedir _get_comp_words_by_ref >/dev/null && echo 'THE PACKAGE IS LOADED'\n")
			}
			b.WriteString("source " + script + "\nclear\n")
			if err := os.WriteFile(rc, []byte(b.String()), 0o644); err != nil {
				t.Fatal(err)
			}
			sh := newBash(t)
			sh.keys("source "+rc, "Enter")
			sh.waitFor("the prompt", "ready$")
			for _, tc := range []struct {
				typed, want string
			}{
				{"traineectl cre", "traineectl create"},
				{"traineectl create -f cl", "traineectl create -f clients.csv"},
				{"traineectl create -f mem", "traineectl create -f members.jsonl"},
				{"traineectl config u", "traineectl config use"},
				{"traineectl -o ya", "traineectl -o yaml"},
				{"traineectl --log-file no", "traineectl --log-file notes.txt"},
			} {
				sh.keys("C-u") // a clean line
				sh.keys("-l", tc.typed)
				sh.keys("Tab")
				screen := sh.waitFor(tc.typed, "ready$ "+tc.want+"\n")
				if strings.Contains(screen, "command not found") || strings.Contains(screen, "THE PACKAGE IS LOADED") {
					t.Fatalf("%q:\n%s", tc.typed, screen)
				}
			}
		})
	}
}

// bashSession is an interactive `bash --norc --noprofile -i` in a detached
// tmux session on a private socket.
type bashSession struct {
	t            *testing.T
	socket, name string
}

func newBash(t *testing.T) *bashSession {
	t.Helper()
	var r [6]byte
	_, _ = rand.Read(r[:])
	s := &bashSession{t: t, socket: "traineectl-test-" + hex.EncodeToString(r[:]), name: "bash"}
	if out, err := s.tmux("new-session", "-d", "-s", s.name, "-x", "160", "-y", "40",
		"env", "-i", "HOME="+t.TempDir(), "TERM=xterm", "PATH="+os.Getenv("PATH"), "bash", "--norc", "--noprofile", "-i"); err != nil {
		t.Fatalf("tmux: %v: %s", err, out)
	}
	t.Cleanup(func() { _, _ = s.tmux("kill-server") })
	return s
}

func (s *bashSession) tmux(args ...string) (string, error) {
	out, err := exec.Command("tmux", append([]string{"-L", s.socket}, args...)...).CombinedOutput()
	return string(out), err
}

func (s *bashSession) keys(keys ...string) {
	s.t.Helper()
	if out, err := s.tmux(append([]string{"send-keys", "-t", s.name}, keys...)...); err != nil {
		s.t.Fatalf("send-keys %q: %v: %s", keys, err, out)
	}
}

func (s *bashSession) capture() string {
	out, _ := s.tmux("capture-pane", "-p", "-t", s.name)
	return out
}

// waitFor polls the pane, its lines without trailing blanks, until it
// shows want, or fails after 10 s.
func (s *bashSession) waitFor(what, want string) string {
	s.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		var lines []string
		for _, l := range strings.Split(s.capture(), "\n") {
			lines = append(lines, strings.TrimRight(l, " "))
		}
		screen := strings.Join(lines, "\n")
		if strings.Contains(screen, want) {
			return screen
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("%s: the screen never showed %q:\n%s", what, want, screen)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
