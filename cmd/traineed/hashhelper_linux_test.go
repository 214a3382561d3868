package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/traineed/traineed/api/server"
)

// hashHelpers returns the pids of the hashing helpers whose parent is ppid.
func hashHelpers(t *testing.T, ppid int) []int {
	t.Helper()
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	var out []int
	for _, st := range stats {
		b, err := os.ReadFile(st)
		if err != nil {
			continue
		}
		f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
		if p, _ := strconv.Atoi(f[1]); p != ppid || f[0] == "Z" {
			continue
		}
		dir := filepath.Dir(st)
		env, _ := os.ReadFile(filepath.Join(dir, "environ"))
		if bytes.Contains(env, []byte(server.HashHelperEnv+"=1")) {
			pid, _ := strconv.Atoi(filepath.Base(dir))
			out = append(out, pid)
		}
	}
	return out
}

// The built traineed hashes in its helper: a create starts one child
// process of the same executable, all of its threads at nice 19, which
// ends when the server stops.
func TestServeHashesInALowPriorityHelper(t *testing.T) {
	db := "sqlite:" + filepath.Join(t.TempDir(), "h.db")
	cid := strings.TrimSpace(ok(t, db, "company", "create", "--name", "Helper"))
	ok(t, db, "trainer", "create", "--company", cid, "--name", "Coach", "--email", "coach@helper.example")
	key := strings.TrimSpace(ok(t, db, "key", "create", "--company", cid, "--name", "h"))
	base, cmd, logs := startServer(t, db, "--shutdown-delay", "0s")
	if !strings.Contains(logs.String(), `"hashLowPriority":true`) {
		t.Fatalf("listening line: %s", logs.String())
	}
	if n := len(hashHelpers(t, cmd.Process.Pid)); n != 0 {
		t.Fatalf("%d helpers before any create", n)
	}
	createHashed(t, base, key, "helper@example.com")
	helpers := hashHelpers(t, cmd.Process.Pid)
	if len(helpers) != 1 {
		t.Fatalf("helpers after a create: %v", helpers)
	}
	stats, _ := filepath.Glob("/proc/" + strconv.Itoa(helpers[0]) + "/task/*/stat")
	if len(stats) == 0 {
		t.Fatal("no threads of the helper")
	}
	for _, st := range stats {
		b, err := os.ReadFile(st)
		if err != nil {
			continue
		}
		f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
		if f[16] != "19" {
			t.Errorf("helper thread %s at nice %s", st, f[16])
		}
	}
	must(t, cmd.Process.Signal(syscall.SIGTERM))
	must(t, cmd.Wait())
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, err := os.Stat("/proc/" + strconv.Itoa(helpers[0]) + "/environ"); os.IsNotExist(err) {
			break
		}
		if b, _ := os.ReadFile("/proc/" + strconv.Itoa(helpers[0]) + "/stat"); bytes.Contains(b, []byte(") Z ")) {
			break // exited, waiting for init to reap it
		}
		if time.Now().After(deadline) {
			t.Fatal("the helper outlived the server")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// The helper is the running binary even when the file the server was
// started from has been replaced (an upgrade): creates still hash in a
// helper, not in the server.
func TestServeHashHelperAfterTheFileIsReplaced(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "traineed")
	b, err := os.ReadFile(binary(t))
	must(t, err)
	must(t, os.WriteFile(bin, b, 0o755))
	db := "sqlite:" + filepath.Join(t.TempDir(), "r.db")
	cid := strings.TrimSpace(ok(t, db, "company", "create", "--name", "Upgrade"))
	ok(t, db, "trainer", "create", "--company", cid, "--name", "Coach", "--email", "coach@upgrade.example")
	key := strings.TrimSpace(ok(t, db, "key", "create", "--company", cid, "--name", "u"))
	cmd := exec.Command(bin, "serve", "--db", db, "--addr", "127.0.0.1:0", "--shutdown-delay", "0s")
	stderr, err := cmd.StderrPipe()
	must(t, err)
	must(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	var base string
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		var m map[string]any
		if json.Unmarshal(sc.Bytes(), &m) == nil && m["msg"] == "listening" {
			base = "http://" + m["addr"].(string)
			break
		}
	}
	go func() { _, _ = io.Copy(io.Discard, stderr) }()
	// The upgrade: another file in the binary's place (not a traineed).
	must(t, os.Remove(bin))
	must(t, os.WriteFile(bin, []byte("#!/bin/sh\nexit 3\n"), 0o755))
	createHashed(t, base, key, "upgrade@example.com")
	if helpers := hashHelpers(t, cmd.Process.Pid); len(helpers) != 1 {
		t.Fatalf("helpers after a create: %v", helpers)
	}
}

// createHashed creates a trainee with a password (so one hash) and
// expects a 200.
func createHashed(t *testing.T, base, key, email string) {
	t.Helper()
	req, _ := http.NewRequest("POST", base+"/public-api/trainees",
		strings.NewReader(`{"name":"Hash Ed","email":"`+email+`","password":"a password"}`))
	req.Header.Set("X-API-Key", key)
	res, err := http.DefaultClient.Do(req)
	must(t, err)
	res.Body.Close()
	if res.StatusCode != 200 {
		t.Fatalf("create: %d", res.StatusCode)
	}
}
