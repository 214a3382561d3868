package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/traineed/traineed/store/storetest"
)

// waitForLine polls path until it holds a line with every one of want, and
// returns the file's content (the server is another process: there is no
// signal to wait on but its output).
func waitForLine(t *testing.T, path string, want ...string) string {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		b, _ := os.ReadFile(path)
		for _, line := range strings.Split(string(b), "\n") {
			ok := line != ""
			for _, w := range want {
				ok = ok && strings.Contains(line, w)
			}
			if ok {
				return string(b)
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no line with %q in %s:\n%s", want, path, b)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// SIGHUP reopens --log-file by name: after a rename (logrotate), the old
// file keeps what came before and a new file gets what comes after, with
// no restart; the reload is counted in the metrics.
func TestServeSIGHUPReopensTheLogFile(t *testing.T) {
	dir := t.TempDir()
	logPath := filepath.Join(dir, "traineed.log")
	cmd := exec.Command(binary(t), "serve", "--db", storetest.SQLiteURL(t), "--addr", "127.0.0.1:0", "--log-file", logPath)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	must(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	var addr string
	for _, line := range strings.Split(waitForLine(t, logPath, `"msg":"listening"`), "\n") {
		var m map[string]any
		if json.Unmarshal([]byte(line), &m) == nil && m["msg"] == "listening" {
			addr = m["addr"].(string)
		}
	}
	base := "http://" + addr
	if code, _ := get(t, base+"/healthz"); code != 200 {
		t.Fatalf("healthz %d", code)
	}
	waitForLine(t, logPath, `"path":"/healthz"`)

	rotated := logPath + ".1"
	must(t, os.Rename(logPath, rotated))
	must(t, cmd.Process.Signal(syscall.SIGHUP))
	waitForLine(t, logPath, "SIGHUP: reloaded")
	if code, _ := get(t, base+"/readyz"); code != 200 {
		t.Fatalf("readyz %d", code)
	}
	after := waitForLine(t, logPath, `"path":"/readyz"`)
	if strings.Contains(after, "/healthz") {
		t.Errorf("the new file has the earlier request:\n%s", after)
	}
	before, err := os.ReadFile(rotated)
	must(t, err)
	if !strings.Contains(string(before), "/healthz") || strings.Contains(string(before), "/readyz") {
		t.Errorf("the rotated file:\n%s", before)
	}
	if _, text := get(t, base+"/metrics"); !strings.Contains(text, `traineed_sighup_reloads_total{result="ok"} 1`) {
		t.Errorf("reload not counted:\n%s", text)
	}

	must(t, cmd.Process.Signal(syscall.SIGTERM))
	must(t, cmd.Process.Signal(syscall.SIGTERM))
	if err := cmd.Wait(); err != nil {
		t.Errorf("exit: %v; stderr %s", err, stderr.String())
	}
	waitForLine(t, logPath, `"msg":"stopped"`)
	if stderr.Len() != 0 {
		t.Errorf("stderr with --log-file: %s", stderr.String())
	}
}

// Every hook runs even when one fails; the error names the one that did.
func TestReloadHooksRunInOrder(t *testing.T) {
	var order []string
	h := &reloadHooks{}
	h.add("first", func() error { order = append(order, "first"); return errors.New("boom") })
	h.add("second", func() error { order = append(order, "second"); return nil })
	var logs bytes.Buffer
	err := h.run(slog.New(slog.NewJSONHandler(&logs, nil)))
	if err == nil || !strings.Contains(err.Error(), "first: boom") {
		t.Errorf("err = %v", err)
	}
	if strings.Join(order, ",") != "first,second" {
		t.Errorf("order %v", order)
	}
	if !strings.Contains(logs.String(), `"what":"first"`) || !strings.Contains(logs.String(), `"failed":1`) {
		t.Errorf("logs: %s", logs.String())
	}
}
