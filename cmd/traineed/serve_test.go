package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/server"
	"github.com/traineed/traineed/store"
	"github.com/traineed/traineed/store/storetest"
)

// buildOnce compiles the command once per test binary, into a directory
// TestMain removes.
var buildOnce struct {
	sync.Once
	dir  string
	path string
	err  error
}

func TestMain(m *testing.M) {
	server.ServeHashHelperIfAsked() // serve, run in process, starts this binary as its helper
	// Servers the tests stop stop at once (they inherit it); the tests of
	// the drain itself give --shutdown-delay.
	os.Setenv("TRAINEED_SHUTDOWN_DELAY", "0s")
	code := m.Run()
	if buildOnce.dir != "" {
		os.RemoveAll(buildOnce.dir)
	}
	os.Exit(code)
}

func binary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "traineed-test-bin")
		buildOnce.dir = dir
		if err == nil {
			buildOnce.path = filepath.Join(dir, "traineed")
			build := exec.Command("go", "build", "-ldflags", stampFlags, "-o", buildOnce.path, ".")
			build.Env = append(os.Environ(), "CGO_ENABLED=0") // as released, and as .ci/run's other builds
			out, berr := build.CombinedOutput()
			if berr != nil {
				err = fmt.Errorf("go build: %v\n%s", berr, out)
			}
		}
		buildOnce.err = err
	})
	if buildOnce.err != nil {
		t.Fatal(buildOnce.err)
	}
	return buildOnce.path
}

// startServer runs `traineed serve` on a free port and returns its base URL
// and the running command.
func startServer(t *testing.T, db string, extra ...string) (string, *exec.Cmd, *strings.Builder) {
	t.Helper()
	cmd := exec.Command(binary(t), append([]string{"serve", "--db", db, "--addr", "127.0.0.1:0"}, extra...)...)
	stderr, err := cmd.StderrPipe()
	must(t, err)
	var logs strings.Builder
	must(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	addr := make(chan string, 1)
	var mu sync.Mutex
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			line := sc.Text()
			mu.Lock()
			logs.WriteString(line + "\n")
			mu.Unlock()
			var m map[string]any
			if json.Unmarshal([]byte(line), &m) == nil && m["msg"] == "listening" {
				addr <- m["addr"].(string)
			}
		}
	}()
	select {
	case a := <-addr:
		return "http://" + a, cmd, &logs
	case <-time.After(60 * time.Second):
		t.Fatalf("server did not start: %s", logs.String())
	}
	return "", nil, nil
}

// SIGTERM while creates are in flight: the server lets them finish, every
// create that got a 200 is stored, and the process exits 0.
func TestShutdownUnderLoad(t *testing.T) {
	storetest.EachURL(t, func(t *testing.T, db string) {
		cid := strings.TrimSpace(ok(t, db, "company", "create", "--name", "Load"))
		ok(t, db, "trainer", "create", "--company", cid, "--name", "Coach", "--email", "coach@load.example")
		key := strings.TrimSpace(ok(t, db, "key", "create", "--company", cid, "--name", "load"))
		base, cmd, logs := startServer(t, db, "--shutdown-delay", "0s") // the drain: TestShutdownDrain

		const n = 60
		var wg sync.WaitGroup
		var mu sync.Mutex
		created := map[int64]bool{}
		var signalled atomic.Bool
		var okAfterSignal atomic.Int32
		started := make(chan struct{}, n)
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				body := fmt.Sprintf(`{"name":"Load %d","email":"load%d@example.com","password":"load password"}`, i, i)
				req, _ := http.NewRequest("POST", base+"/public-api/trainees", strings.NewReader(body))
				req.Header.Set("X-API-Key", key)
				started <- struct{}{}
				res, err := http.DefaultClient.Do(req)
				if err != nil {
					return // refused once the listener closed: never answered, fine
				}
				defer res.Body.Close()
				b, _ := io.ReadAll(res.Body)
				if res.StatusCode != 200 {
					t.Errorf("status %d: %s", res.StatusCode, b)
					return
				}
				var env api.TraineeEnvelope
				if err := json.Unmarshal(b, &env); err != nil {
					t.Errorf("body %q: %v", b, err)
					return
				}
				mu.Lock()
				created[env.Trainee.ID] = true
				mu.Unlock()
				if signalled.Load() {
					okAfterSignal.Add(1)
				}
			}()
		}
		for range n {
			<-started
		}
		time.Sleep(50 * time.Millisecond) // let the requests reach the server
		signalled.Store(true)
		must(t, cmd.Process.Signal(syscall.SIGTERM))
		wg.Wait()
		if err := cmd.Wait(); err != nil {
			t.Fatalf("server exit: %v\n%s", err, logs.String())
		}
		if okAfterSignal.Load() == 0 {
			t.Fatal("no request in flight at SIGTERM finished with a 200: the test proved nothing")
		}
		s, err := store.Open(context.Background(), db)
		must(t, err)
		defer s.Close()
		companyID, _ := strconv.ParseInt(cid, 10, 64)
		for id := range created {
			if _, err := s.Trainee(context.Background(), companyID, id); err != nil {
				t.Errorf("trainee %d answered 200 but is not stored: %v", id, err)
			}
		}
		t.Logf("%d creates answered 200, %d of them after SIGTERM", len(created), okAfterSignal.Load())
	})
}

// SIGTERM under load on kept-alive connections: /readyz turns 503 at once,
// the server keeps serving every request (each with Connection: close)
// until the drain ends (here: the second SIGTERM, which ends the delay
// early, so nothing depends on timing), and not one request sent before
// that fails; every create answered 200 is stored; the process exits 0.
func TestShutdownDrain(t *testing.T) {
	storetest.EachURL(t, func(t *testing.T, db string) {
		cid := strings.TrimSpace(ok(t, db, "company", "create", "--name", "Drain"))
		ok(t, db, "trainer", "create", "--company", cid, "--name", "Coach", "--email", "coach@drain.example")
		key := strings.TrimSpace(ok(t, db, "key", "create", "--company", cid, "--name", "drain"))
		// No rate limit: the workers send as fast as the server answers
		// until told to stop, so a fast server would otherwise meet the
		// default limit (429) and the test would depend on speed.
		base, cmd, logs := startServer(t, db, "--shutdown-delay", "1h", "--rate-limit", "0")

		const workers, perPhase = 8, 6
		var (
			stop, drained    atomic.Bool
			failures         atomic.Int32
			closedAfterDrain atomic.Int32
			mu               sync.Mutex
			created          []int64
			wg               sync.WaitGroup
		)
		warm := make(chan struct{}, workers)
		afterDrain := make(chan struct{}, workers)
		client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: workers}}
		for w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				before, after := 0, 0
				for i := 0; !stop.Load(); i++ {
					wasDrained := drained.Load()
					var req *http.Request
					if i%2 == 0 {
						body := fmt.Sprintf(`{"name":"Drain %d-%d","email":"drain%d-%d@example.com","password":"drain password"}`, w, i, w, i)
						req, _ = http.NewRequest("POST", base+"/public-api/trainees", strings.NewReader(body))
					} else {
						req, _ = http.NewRequest("GET", base+"/public-api/trainees/search?size=5", nil)
					}
					req.Header.Set("X-API-Key", key)
					res, err := client.Do(req)
					if err != nil {
						failures.Add(1)
						t.Errorf("worker %d request %d (%s, sent before the drain ended): %v", w, i, req.Method, err)
						return
					}
					b, _ := io.ReadAll(res.Body)
					res.Body.Close()
					if res.StatusCode != 200 {
						failures.Add(1)
						t.Errorf("worker %d request %d: %d %s", w, i, res.StatusCode, b)
						return
					}
					if req.Method == "POST" {
						var env api.TraineeEnvelope
						if json.Unmarshal(b, &env) == nil && env.Trainee != nil {
							mu.Lock()
							created = append(created, env.Trainee.ID)
							mu.Unlock()
						}
					}
					if wasDrained && res.Close {
						closedAfterDrain.Add(1)
					}
					if before++; before == perPhase {
						warm <- struct{}{}
					}
					if wasDrained {
						if after++; after == perPhase {
							afterDrain <- struct{}{}
						}
					}
				}
			}()
		}
		for range workers {
			<-warm // every worker holds a kept-alive connection
		}
		must(t, cmd.Process.Signal(syscall.SIGTERM))
		waitNotReady(t, base, logs)
		drained.Store(true)
		for range workers {
			<-afterDrain // each worker was served again, during the drain
		}
		stop.Store(true)
		wg.Wait()
		must(t, cmd.Process.Signal(syscall.SIGTERM)) // ends the delay
		if err := cmd.Wait(); err != nil {
			t.Fatalf("server exit: %v\n%s", err, logs.String())
		}
		if failures.Load() != 0 {
			t.Fatalf("%d requests sent before the drain ended failed", failures.Load())
		}
		if closedAfterDrain.Load() < workers*perPhase {
			t.Errorf("only %d responses during the drain carried Connection: close", closedAfterDrain.Load())
		}
		if !strings.Contains(logs.String(), `"msg":"draining"`) {
			t.Errorf("no draining line in the log:\n%s", logs.String())
		}
		s, err := store.Open(context.Background(), db)
		must(t, err)
		defer s.Close()
		companyID, _ := strconv.ParseInt(cid, 10, 64)
		for _, id := range created {
			if _, err := s.Trainee(context.Background(), companyID, id); err != nil {
				t.Errorf("trainee %d answered 200 but is not stored: %v", id, err)
			}
		}
		t.Logf("%d creates answered 200, none failed", len(created))
	})
}

// serve --demo on an empty database loads the demo and prints a working key;
// a second start on the same database prints a fresh working key.
// serve --demo on an empty database loads the demo and prints a working
// key, labelled; a second start on the same database prints a fresh
// working key and disables the first, saying so.
func TestServeDemo(t *testing.T) {
	db := "sqlite:" + filepath.Join(t.TempDir(), "demo.db")
	var keys []string
	for round := range 2 {
		cmd := exec.Command(binary(t), "serve", "--demo", "--db", db, "--addr", "127.0.0.1:0")
		stdout, err := cmd.StdoutPipe()
		must(t, err)
		stderr, err := cmd.StderrPipe()
		must(t, err)
		must(t, cmd.Start())
		line, err := bufio.NewReader(stdout).ReadString('\n')
		must(t, err)
		key, ok := strings.CutPrefix(strings.TrimSpace(line), "API key for Demo Fitness: ")
		if !ok || !api.WellFormedKey(key) {
			t.Fatalf("round %d printed %q", round, line)
		}
		keys = append(keys, key)
		var base string
		var logs strings.Builder
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			logs.WriteString(sc.Text() + "\n")
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) == nil && m["msg"] == "listening" {
				base = "http://" + m["addr"].(string)
				break
			}
		}
		go func() { _, _ = io.Copy(io.Discard, stderr) }()
		if round == 1 && !strings.Contains(logs.String(), "Disabled the demo key of an earlier start: "+keys[0][:8]+"… (demo)") {
			t.Errorf("round 1 did not say which key it disabled:\n%s", logs.String())
		}
		search := func(key string) int {
			req, _ := http.NewRequest("GET", base+"/public-api/trainees/search?status=all&size=100", nil)
			req.Header.Set("X-API-Key", key)
			res, err := http.DefaultClient.Do(req)
			must(t, err)
			defer res.Body.Close()
			var page api.TraineePage
			if res.StatusCode == 200 {
				must(t, json.NewDecoder(res.Body).Decode(&page))
				if page.Page.TotalElements < 50 || page.Page.TotalElements > 70 {
					t.Fatalf("round %d: demo has %d trainees", round, page.Page.TotalElements)
				}
			}
			return res.StatusCode
		}
		if code := search(key); code != 200 {
			t.Fatalf("round %d: the printed key got %d", round, code)
		}
		if round == 1 {
			if code := search(keys[0]); code != 401 {
				t.Errorf("the first start's key still works (%d)", code)
			}
		}
		must(t, cmd.Process.Signal(syscall.SIGTERM))
		must(t, cmd.Wait())
	}
}

// serve --demo on an address already taken fails before it makes a key.
func TestServeDemoPortTakenMakesNoKey(t *testing.T) {
	db := "sqlite:" + filepath.Join(t.TempDir(), "demo.db")
	out, err := exec.Command(binary(t), "demo", "--db", db).Output()
	must(t, err)
	if !api.WellFormedKey(strings.TrimSpace(string(out))) {
		t.Fatalf("demo printed %q", out)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	must(t, err)
	defer ln.Close()
	cmd := exec.Command(binary(t), "serve", "--demo", "--db", db, "--addr", ln.Addr().String())
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err == nil {
		t.Fatal("serve on a taken port succeeded")
	}
	if stdout.String() != "" || !strings.Contains(stderr.String(), "address already in use") {
		t.Errorf("stdout %q, stderr %q", stdout.String(), stderr.String())
	}
	keys, err := exec.Command(binary(t), "key", "list", "--company", "1", "--db", db, "-o", "json").Output()
	must(t, err)
	var list []api.APIKey
	must(t, json.Unmarshal(keys, &list))
	if len(list) != 1 || list[0].State != api.KeyActive {
		t.Errorf("keys after a failed start: %s", keys)
	}
}

// Logs are JSON off a terminal unless --log-format says otherwise.
func TestServeLogFormat(t *testing.T) {
	db := "sqlite:" + filepath.Join(t.TempDir(), "logs.db")
	_, cmd, logs := startServer(t, db)
	must(t, cmd.Process.Signal(syscall.SIGTERM))
	_ = cmd.Wait()
	if !strings.HasPrefix(logs.String(), "{") {
		t.Errorf("not JSON off a terminal: %s", logs.String())
	}
	cmd = exec.Command(binary(t), "serve", "--db", db, "--addr", "127.0.0.1:0", "--log-format", "text")
	stderr, err := cmd.StderrPipe()
	must(t, err)
	must(t, cmd.Start())
	line, err := bufio.NewReader(stderr).ReadString('\n')
	must(t, err)
	must(t, cmd.Process.Signal(syscall.SIGTERM))
	_ = cmd.Wait()
	if !strings.HasPrefix(line, "time=") || !strings.Contains(line, "msg=listening") {
		t.Errorf("--log-format text: %q", line)
	}
}

// On a terminal (a tmux pane), logs are text.
func TestServeLogsTextOnATerminal(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	db := "sqlite:" + filepath.Join(t.TempDir(), "tty.db")
	socket := fmt.Sprintf("traineed-test-%d", time.Now().UnixNano())
	tmux := func(args ...string) string {
		out, _ := exec.Command("tmux", append([]string{"-L", socket}, args...)...).CombinedOutput()
		return string(out)
	}
	tmux("new-session", "-d", "-s", "srv", "-x", "200", "-y", "20", binary(t), "serve", "--demo", "--db", db, "--addr", "127.0.0.1:0")
	// Closing the terminal sends SIGHUP, which serve takes as "reopen the
	// log file": stop the server itself (SIGTERM) before the terminal.
	pid, _ := strconv.Atoi(strings.TrimSpace(tmux("display-message", "-p", "-t", "srv", "#{pane_pid}")))
	t.Cleanup(func() {
		if p, err := os.FindProcess(pid); pid > 0 && err == nil {
			_ = p.Signal(syscall.SIGTERM)
			for i := 0; i < 100 && p.Signal(syscall.Signal(0)) == nil; i++ {
				time.Sleep(50 * time.Millisecond)
			}
		}
		tmux("kill-server")
	})
	deadline := time.Now().Add(30 * time.Second)
	for {
		screen := tmux("capture-pane", "-p", "-t", "srv")
		if strings.Contains(screen, "msg=listening") && strings.Contains(screen, "API key for Demo Fitness: pk_") {
			if strings.Contains(screen, `{"time"`) {
				t.Errorf("JSON on a terminal:\n%s", screen)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no text log line on the terminal:\n%s", screen)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// A feed request waiting (wait=30, the TUI's live mode) does not hold the
// shutdown up: the drain keeps it waiting, and when the drain ends (the
// second SIGTERM) it answers at once a 200 empty page, as a wait that runs
// out does, and the process exits 0, all within seconds, not 30.
func TestShutdownEndsFeedWaits(t *testing.T) {
	storetest.EachURL(t, func(t *testing.T, db string) {
		cid := strings.TrimSpace(ok(t, db, "company", "create", "--name", "Waits"))
		ok(t, db, "trainer", "create", "--company", cid, "--name", "Coach", "--email", "coach@waits.example")
		key := strings.TrimSpace(ok(t, db, "key", "create", "--company", cid, "--name", "waits"))
		base, cmd, logs := startServer(t, db, "--shutdown-delay", "1h")
		get := func(path string) (*http.Response, api.EventPage, error) {
			req, _ := http.NewRequest("GET", base+path, nil)
			req.Header.Set("X-API-Key", key)
			res, err := http.DefaultClient.Do(req)
			var page api.EventPage
			if err == nil {
				defer res.Body.Close()
				err = json.NewDecoder(res.Body).Decode(&page)
			}
			return res, page, err
		}
		_, first, err := get("/public-api/events?limit=100")
		must(t, err)
		type answer struct {
			res  *http.Response
			page api.EventPage
			err  error
			at   time.Time
		}
		answered := make(chan answer, 1)
		go func() {
			res, page, err := get("/public-api/events?wait=30&after=" + first.Next)
			answered <- answer{res, page, err, time.Now()}
		}()
		time.Sleep(500 * time.Millisecond) // the request reaches the server and waits
		must(t, cmd.Process.Signal(syscall.SIGTERM))
		waitNotReady(t, base, logs)
		select {
		case a := <-answered:
			t.Fatalf("the wait answered during the drain: %+v", a)
		case <-time.After(300 * time.Millisecond):
		}
		ended := time.Now()
		must(t, cmd.Process.Signal(syscall.SIGTERM)) // ends the drain
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		select {
		case a := <-answered:
			if a.err != nil || a.res.StatusCode != 200 || len(a.page.Events) != 0 || a.page.Next != first.Next {
				t.Fatalf("the wait answered %v %+v, %v; want 200, no event, next %q", a.res, a.page, a.err, first.Next)
			}
			t.Logf("the wait answered %v after the drain ended", a.at.Sub(ended))
		case <-time.After(5 * time.Second):
			t.Fatalf("the wait still had no answer 5 s after the drain ended\n%s", logs.String())
		}
		select {
		case err := <-exited:
			if err != nil {
				t.Fatalf("server exit: %v\n%s", err, logs.String())
			}
			t.Logf("the server exited %v after the drain ended", time.Since(ended))
		case <-time.After(5 * time.Second):
			t.Fatalf("the server had not exited 5 s after the drain ended\n%s", logs.String())
		}
	})
}

// waitNotReady polls /readyz after SIGTERM until the drain says 503; the
// server must keep answering meanwhile.
func waitNotReady(t *testing.T, base string, logs fmt.Stringer) {
	t.Helper()
	for range 10000 {
		res, err := http.Get(base + "/readyz")
		if err != nil {
			t.Fatalf("/readyz during the drain: %v\n%s", err, logs.String())
		}
		res.Body.Close()
		if res.StatusCode == 503 {
			return
		}
	}
	t.Fatalf("/readyz still ready after SIGTERM")
}
