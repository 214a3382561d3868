package main

import (
	"bytes"
	"net/http"
	"os"
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
	key := strings.TrimSpace(ok(t, db, "key", "create", "--company", cid, "--name", "h"))
	base, cmd, logs := startServer(t, db, "--shutdown-delay", "0s")
	if !strings.Contains(logs.String(), `"hashLowPriority":true`) {
		t.Fatalf("listening line: %s", logs.String())
	}
	if n := len(hashHelpers(t, cmd.Process.Pid)); n != 0 {
		t.Fatalf("%d helpers before any create", n)
	}
	req, _ := http.NewRequest("POST", base+"/public-api/trainees",
		strings.NewReader(`{"name":"Hel Per","email":"helper@example.com","password":"helper password"}`))
	req.Header.Set("X-API-Key", key)
	res, err := http.DefaultClient.Do(req)
	must(t, err)
	res.Body.Close()
	if res.StatusCode != 200 {
		t.Fatalf("create: %d", res.StatusCode)
	}
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
