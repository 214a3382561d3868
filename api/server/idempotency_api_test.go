package server_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/server"
	"github.com/traineed/traineed/store/storetest"
)

func idemHeader(k string) http.Header { return http.Header{api.HeaderIdempotencyKey: {k}} }

func (e *env) count(key string) int64 {
	e.t.Helper()
	var p api.TraineePage
	e.do("GET", "/public-api/trainees/search?"+url.Values{"status": {"all"}}.Encode(), key, nil).expect(e.t, 200).JSON(e.t, &p)
	return p.Page.TotalElements
}

func TestIdempotencyKeyReplay(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		body := newTraineeBody("Idem Ada")
		first := doOn(t, e.srv.URL, "POST", "/public-api/trainees", e.keyA, body, idemHeader("row-1")).expect(t, 200)
		if first.Header.Get(api.HeaderIdempotentReplayed) != "" {
			t.Fatalf("first answer marked replayed")
		}
		again := doOn(t, e.srv.URL, "POST", "/public-api/trainees", e.keyA, body, idemHeader("row-1")).expect(t, 200)
		if again.Header.Get(api.HeaderIdempotentReplayed) != "true" || !bytes.Equal(again.Body, first.Body) ||
			again.Header.Get("Content-Type") != "application/json" {
			t.Fatalf("replay: %v %s, want the first body %s", again.Header, again.Body, first.Body)
		}
		if n := e.count(e.keyA); n != 1 {
			t.Fatalf("%d trainees, want 1", n)
		}
		// Same key, another body (or path): 1015, nothing created.
		other := newTraineeBody("Idem Other")
		doOn(t, e.srv.URL, "POST", "/public-api/trainees", e.keyA, other, idemHeader("row-1")).expectError(t, api.CodeIdempotencyMismatch, "Idempotency-Key")
		doOn(t, e.srv.URL, "POST", "/public-api/webhooks", e.keyA, body, idemHeader("row-1")).expectError(t, api.CodeIdempotencyMismatch, "Idempotency-Key")
		if n := e.count(e.keyA); n != 1 {
			t.Fatalf("%d trainees after a mismatch, want 1", n)
		}
		// Keys are per company: company B's "row-1" is its own.
		doOn(t, e.srv.URL, "POST", "/public-api/trainees", e.keyB, other, idemHeader("row-1")).expect(t, 200)
		// A 400 is kept too: the same request gets it again, replayed.
		bad := map[string]any{"name": "No Mail", "password": "correct horse"}
		b1 := doOn(t, e.srv.URL, "POST", "/public-api/trainees", e.keyA, bad, idemHeader("bad")).expectError(t, api.CodeRequired, "email")
		b2 := doOn(t, e.srv.URL, "POST", "/public-api/trainees", e.keyA, bad, idemHeader("bad"))
		if b2.Header.Get(api.HeaderIdempotentReplayed) != "true" {
			t.Fatalf("400 not replayed: %v", b2.Header)
		}
		var got api.ErrorBody
		b2.expect(t, 400).JSON(t, &got)
		if got.ErrorCode != b1.ErrorCode {
			t.Fatalf("replayed %s", b2.Body)
		}
		// Without the header nothing changes: a repeat is the 400 1008.
		e.do("POST", "/public-api/trainees", e.keyA, body).expectError(t, api.CodeEmailTaken, "email")
		// Keys must be 1-255 printable characters.
		for _, k := range []string{strings.Repeat("k", 256), "tab\there"} {
			doOn(t, e.srv.URL, "POST", "/public-api/trainees", e.keyA, newTraineeBody("Bad Key"), idemHeader(k)).expectError(t, api.CodeInvalidParameter, "Idempotency-Key")
		}
		doOn(t, e.srv.URL, "POST", "/public-api/trainees", e.keyA, newTraineeBody("Max Key"), idemHeader(strings.Repeat("~", 255))).expect(t, 200)
		// What is stored: one row per company and key.
		if n := storetest.Count(t, e.store, "idempotency_keys", "company_id = ?", e.companyA); n != 3 {
			t.Fatalf("%d stored answers for A, want 3", n)
		}
	})
}

// 50 identical creates at once with one key, half through a second
// instance on the same database: one trainee, 50 identical bodies, no 500.
func TestIdempotencyConcurrentCreates(t *testing.T) {
	storetest.EachURL(t, func(t *testing.T, dbURL string) {
		e := newEnv(t, storetest.Open(t, dbURL))
		other := httptest.NewServer(server.NewHandler(storetest.Open(t, dbURL), server.WithHasher(cheapHasher), server.WithClock(func() time.Time { return fixedNow })))
		t.Cleanup(other.Close)
		body, _ := json.Marshal(newTraineeBody("Fifty Times"))
		const n = 50
		answers := make([]*resp, n)
		var wg sync.WaitGroup
		for i := range n {
			base := e.srv.URL
			if i%2 == 1 {
				base = other.URL
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				answers[i] = doOn(t, base, "POST", "/public-api/trainees", e.keyA, body, idemHeader("same-row"))
			}()
		}
		wg.Wait()
		for i, a := range answers {
			if a.Status != 200 || !bytes.Equal(a.Body, answers[0].Body) {
				t.Fatalf("answer %d: %d %s, want 200 %s", i, a.Status, a.Body, answers[0].Body)
			}
		}
		if c := e.count(e.keyA); c != 1 {
			t.Fatalf("%d trainees, want 1", c)
		}
	})
}

// The server is killed (SIGKILL) after the change and its answer committed
// and before the answer went out; the client's retry gets that answer.
func TestIdempotencyKilledBeforeAnswer(t *testing.T) {
	storetest.EachURL(t, func(t *testing.T, dbURL string) {
		s := storetest.Open(t, dbURL)
		ctx := context.Background()
		co, err := s.CreateCompany(ctx, "Killed", "UTC")
		must(t, err)
		storetest.MustTrainer(t, s, co.ID, "Coach", "coach@killed.example")
		key := api.GenerateKey()
		_, err = s.CreateKey(ctx, co.ID, "k", api.HashKey(key), api.KeyDisplayPrefix(key))
		must(t, err)

		cmd := exec.Command(os.Args[0], "-test.run=^TestIdempotencyKillHelper$")
		cmd.Env = append(os.Environ(), "TRAINEED_IDEM_HELPER_DB="+dbURL)
		out, err := cmd.StdoutPipe()
		must(t, err)
		must(t, cmd.Start())
		line, err := bufio.NewReader(out).ReadString('\n')
		if err != nil {
			_ = cmd.Process.Kill()
			t.Fatalf("helper: %v", err)
		}
		addr := strings.TrimSpace(strings.TrimPrefix(line, "ADDR "))
		body, _ := json.Marshal(newTraineeBody("Killed Kim"))
		req, _ := http.NewRequest("POST", "http://"+addr+"/public-api/trainees", bytes.NewReader(body))
		req.Header.Set("X-API-Key", key)
		req.Header.Set(api.HeaderIdempotencyKey, "lost-answer")
		if res, err := http.DefaultClient.Do(req); err == nil {
			res.Body.Close()
			t.Fatalf("the killed server answered %d", res.StatusCode)
		}
		werr := cmd.Wait()
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
			t.Fatalf("helper ended with %v, want SIGKILL", werr)
		}
		srv := httptest.NewServer(server.NewHandler(s, server.WithHasher(cheapHasher)))
		t.Cleanup(srv.Close)
		r := doOn(t, srv.URL, "POST", "/public-api/trainees", key, body, idemHeader("lost-answer")).expect(t, 200)
		if r.Header.Get(api.HeaderIdempotentReplayed) != "true" {
			t.Fatalf("retry not replayed: %v %s", r.Header, r.Body)
		}
		var env api.TraineeEnvelope
		r.JSON(t, &env)
		if env.Trainee == nil || env.Trainee.Name != "Killed Kim" {
			t.Fatalf("stored answer %s", r.Body)
		}
		if n := storetest.Count(t, s, "trainees", "company_id = ?", co.ID); n != 1 {
			t.Fatalf("%d trainees, want 1", n)
		}
	})
}

// TestIdempotencyKillHelper is the server TestIdempotencyKilledBeforeAnswer
// kills: it runs only in the subprocess that test starts.
func TestIdempotencyKillHelper(t *testing.T) {
	dbURL := os.Getenv("TRAINEED_IDEM_HELPER_DB")
	if dbURL == "" {
		t.Skip("runs as the subprocess of TestIdempotencyKilledBeforeAnswer")
	}
	s := storetest.Open(t, dbURL)
	h := server.NewHandler(s, server.WithHasher(cheapHasher), server.WithAfterIdempotentCommit(func() {
		_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {}
	}))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	must(t, err)
	fmt.Printf("ADDR %s\n", ln.Addr())
	_ = http.Serve(ln, h)
}
