package main_test

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/server"
	"github.com/traineed/traineed/store"
	"github.com/traineed/traineed/store/storetest"
)

// TestApplySurvivesKill runs `traineectl apply -f --prune` as a real
// process against a real server, kills it with SIGKILL at random moments,
// runs it again to the end, and checks that the company converged to the
// file: every new row created exactly once, every update and restore
// applied once, the absent trainees deleted; and a last run changes
// nothing.
func TestApplySurvivesKill(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs traineectl")
	}
	bin := traineectlBinary(t)
	storetest.Each(t, func(t *testing.T, st *store.Store) { applyKillRun(t, st, bin) })
}

// The company has trainees 0..149 (every tenth deleted); the file has
// rows 50..249: 50..149 changed (name, and a phone for every third),
// 150..249 new. With --prune, 0..49 go.
const (
	killFirst, killExisting, killLast = 50, 150, 250
)

func killName(i int) string {
	if i%2 == 1 {
		return fmt.Sprintf("Renamed %d", i)
	}
	return fmt.Sprintf("Trainee %d", i)
}

func killPhone(i int) string {
	if i%3 == 0 {
		return fmt.Sprintf("+447700%06d", i)
	}
	return ""
}

func applyKillRun(t *testing.T, st *store.Store, bin string) {
	ctx := context.Background()
	company, err := st.CreateCompany(ctx, "Acme", "UTC")
	if err != nil {
		t.Fatal(err)
	}
	key := api.GenerateKey()
	if _, err := st.CreateKey(ctx, company.ID, "cli", api.HashKey(key), api.KeyDisplayPrefix(key)); err != nil {
		t.Fatal(err)
	}
	if _, err := st.CreateTrainer(ctx, company.ID, "Coach", "coach@acme.example"); err != nil {
		t.Fatal(err)
	}
	for i := range killExisting {
		tr := storetest.MustCreate(t, st, company.ID, storetest.NewTrainee(fmt.Sprintf("Trainee %d", i), fmt.Sprintf("t%03d@example.com", i)))
		if i%10 == 0 {
			if _, err := st.UpdateTrainee(ctx, company.ID, tr.ID, api.TraineePatch{Enabled: api.Val(false)}); err != nil {
				t.Fatal(err)
			}
		}
	}
	h := server.NewHandler(st, server.WithHasher(server.NewHasher(server.PasswordParams{MemoryKiB: 64, Time: 1, Threads: 1})))

	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	var (
		mu      sync.Mutex
		rng     = rand.New(rand.NewPCG(seed, 2))
		applied = map[string]int{} // "METHOD path" answered 200
	)
	jitter := func() time.Duration {
		mu.Lock()
		defer mu.Unlock()
		return time.Duration(rng.IntN(6000)) * time.Microsecond
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(jitter())
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		if r.Method != http.MethodGet && r.URL.Path != api.PathErasedCheck && rec.Code == http.StatusOK { // the check is a read
			mu.Lock()
			applied[r.Method+" "+r.URL.Path]++
			mu.Unlock()
		}
		time.Sleep(jitter())
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.WriteHeader(rec.Code)
		_, _ = w.Write(rec.Body.Bytes())
	}))
	defer srv.Close()

	var in bytes.Buffer
	in.WriteString("name,email,phone,password\n")
	for i := killFirst; i < killLast; i++ {
		fmt.Fprintf(&in, "%s,t%03d@example.com,%s,S3cret-pass-%d\n", killName(i), i, killPhone(i), i)
	}
	dir := t.TempDir()
	input := filepath.Join(dir, "clients.csv")
	if err := os.WriteFile(input, in.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func() *exec.Cmd {
		cmd := exec.Command(bin, "apply", "-f", input, "--prune", "--yes", "--parallel", "4")
		cmd.Env = append(os.Environ(), "TRAINEECTL_BASE_URL="+srv.URL, "TRAINEECTL_API_KEY="+key,
			"XDG_CONFIG_HOME="+dir, "HOME="+dir)
		return cmd
	}
	for i := range 5 {
		cmd := run()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		delay := time.Duration(100+rng.IntN(900)) * time.Millisecond
		mu.Unlock()
		time.Sleep(delay)
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		t.Logf("run %d killed after %v", i+1, delay)
	}
	out, err := run().CombinedOutput()
	if err != nil {
		t.Fatalf("the last run: %v\n%s", err, out)
	}
	t.Logf("last run: %s", bytes.TrimSpace(out))
	checkKillState(t, st, company.ID)

	// Each change was applied once: one create per new row (checkKillState
	// found each e-mail once), one update or restore per changed trainee.
	mu.Lock()
	posts, puts, deletes := 0, 0, 0
	for k, n := range applied {
		if n != 1 && !strings.HasPrefix(k, "DELETE") && !strings.HasPrefix(k, "POST") { // POSTs share a path: counted below
			t.Errorf("%s applied %d times", k, n)
		}
		switch {
		case strings.HasPrefix(k, "POST"):
			posts += n
		case strings.HasPrefix(k, "PUT"):
			puts++
		case strings.HasPrefix(k, "DELETE"):
			deletes++
		}
	}
	mu.Unlock()
	// A change the server committed while its client was being killed may
	// have been answered with an error (the request's context ends): it
	// counts in the state checked above, not here. So these are bounds.
	if posts > killLast-killExisting || deletes > 45 {
		t.Errorf("%d creates and %d trainees deleted answered 200, want at most %d and 45", posts, deletes, killLast-killExisting)
	}
	t.Logf("answered 200: %d creates, %d trainees updated or restored, %d deleted", posts, puts, deletes)

	// And again: nothing to do.
	out, err = run().CombinedOutput()
	if err != nil || !strings.Contains(string(out), fmt.Sprintf("Created 0, updated 0, restored 0, deleted 0, unchanged %d, failed 0", killLast-killFirst)) {
		t.Errorf("a run after convergence: %v\n%s", err, out)
	}
}

// checkKillState checks the company against the file.
func checkKillState(t *testing.T, st *store.Store, company int64) {
	t.Helper()
	all, _, err := st.SearchTrainees(context.Background(), company, api.Search{Status: api.StatusAll, Size: 1000, Today: api.DateOf(time.Now())})
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != killLast {
		t.Fatalf("%d trainees, want %d", len(all), killLast)
	}
	for _, tr := range all {
		var i int
		if _, err := fmt.Sscanf(tr.Email, "t%03d@example.com", &i); err != nil {
			t.Fatalf("unexpected trainee %s", tr.Email)
		}
		phone := ""
		if tr.PhoneNumber != nil {
			phone = *tr.PhoneNumber
		}
		switch {
		case i < killFirst:
			if tr.Enabled {
				t.Errorf("%s not pruned", tr.Email)
			}
		case tr.Name != killName(i) || phone != killPhone(i) || !tr.Enabled:
			t.Errorf("%s: %q %q enabled %v, want %q %q", tr.Email, tr.Name, phone, tr.Enabled, killName(i), killPhone(i))
		}
	}
}
