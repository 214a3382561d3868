package main_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/server"
	"github.com/traineed/traineed/cmd/traineectl/internal/bulkimport"
	"github.com/traineed/traineed/store/storetest"
)

// TestImportSurvivesKill runs `traineectl create -f` as a real process
// against a real server, kills it with SIGKILL at random moments, runs it
// again to the end, and checks that every row exists exactly once and that
// the journal and the results file agree with the server, generated
// passwords included.
func TestImportSurvivesKill(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs traineectl")
	}
	dir := t.TempDir()
	bin := traineectlBinary(t)

	ctx := context.Background()
	st := storetest.SQLite(t)
	company, err := st.CreateCompany(ctx, "Acme", "UTC")
	if err != nil {
		t.Fatal(err)
	}
	storetest.MustTrainer(t, st, company.ID, "Coach", "coach@acme.example")
	key := api.GenerateKey()
	if _, err := st.CreateKey(ctx, company.ID, "cli", api.HashKey(key), api.KeyDisplayPrefix(key)); err != nil {
		t.Fatal(err)
	}
	h := server.NewHandler(st, server.WithHasher(server.NewHasher(server.PasswordParams{MemoryKiB: 64, Time: 1, Threads: 1})))

	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	var (
		mu      sync.Mutex
		rng     = rand.New(rand.NewPCG(seed, 1))
		created int // creates answered 200
		lookups int // searches: rows settled by their e-mail
	)
	jitter := func() time.Duration {
		mu.Lock()
		defer mu.Unlock()
		return time.Duration(rng.IntN(6000)) * time.Microsecond
	}
	// Latency before and after the handler, so that kills land while
	// requests are under way, and between a commit and its answer.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(jitter())
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		mu.Lock()
		switch {
		case r.Method == http.MethodPost && rec.Code == http.StatusOK:
			created++
		case r.Method == http.MethodGet:
			lookups++
		}
		mu.Unlock()
		time.Sleep(jitter())
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.WriteHeader(rec.Code)
		_, _ = w.Write(rec.Body.Bytes())
	}))
	defer srv.Close()

	const rows = 200
	var in bytes.Buffer
	in.WriteString("name,email,phone\n")
	for i := range rows {
		phone := ""
		if i%2 == 0 {
			phone = fmt.Sprintf("+44 7700 9%05d", i)
		}
		fmt.Fprintf(&in, "Trainee %d,t%03d@example.com,%s\n", i, i, phone)
	}
	input := filepath.Join(dir, "clients.csv")
	results := filepath.Join(dir, "results.csv")
	if err := os.WriteFile(input, in.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func() *exec.Cmd {
		cmd := exec.Command(bin, "create", "-f", input, "--generate-passwords", "--results", results, "--parallel", "4")
		cmd.Env = append(os.Environ(), "TRAINEECTL_BASE_URL="+srv.URL, "TRAINEECTL_API_KEY="+key,
			"XDG_CONFIG_HOME="+dir, "HOME="+dir)
		return cmd
	}

	for i := range 5 {
		cmd := run()
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		delay := time.Duration(50+rng.IntN(400)) * time.Millisecond
		mu.Unlock()
		time.Sleep(delay)
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		t.Logf("run %d killed after %v", i+1, delay)
	}
	cmd := run()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the last run: %v\n%s", err, out)
	}
	mu.Lock()
	t.Logf("last run: %s; %d lookups in all", bytes.TrimSpace(out), lookups)
	mu.Unlock()

	// The server: every row once, and exactly one successful create each.
	all, _, err := st.SearchTrainees(ctx, company.ID, api.Search{Status: api.StatusAll, Size: 1000, Today: api.DateOf(time.Now())})
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]int64{}
	for _, tr := range all {
		if _, dup := ids[tr.Email]; dup {
			t.Errorf("%s exists twice", tr.Email)
		}
		ids[tr.Email] = tr.ID
	}
	if len(ids) != rows {
		t.Fatalf("%d trainees, want %d", len(ids), rows)
	}
	mu.Lock()
	if created != rows {
		t.Errorf("%d creates succeeded, want %d", created, rows)
	}
	mu.Unlock()

	// The journal: every row created, with the server's id.
	j, err := bulkimport.ReadJournal(input + ".journal")
	if err != nil {
		t.Fatal(err)
	}
	entries := j.Entries()
	if len(entries) != rows {
		t.Errorf("the journal knows %d rows, want %d", len(entries), rows)
	}
	for _, e := range entries {
		if e.State != bulkimport.StateCreated || e.TraineeID != ids[e.Email] {
			t.Errorf("journal entry %+v, server id %d", e, ids[e.Email])
		}
	}

	// The results file: one password per row, the one the server stored,
	// and the row's last outcome is the server's trainee.
	f, err := os.Open(results)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	password := map[string]string{}
	last := map[string][]string{}
	for _, r := range recs[1:] {
		email, pw := r[3], r[7]
		if pw != "" {
			if prev, ok := password[email]; ok && prev != pw {
				t.Errorf("%s has two generated passwords", email)
			}
			password[email] = pw
		}
		if r[4] != bulkimport.StatusPending && r[4] != bulkimport.StatusUnknown {
			last[email] = r
		}
	}
	for email, id := range ids {
		r := last[email]
		if r == nil || (r[4] != bulkimport.StatusCreated && r[4] != bulkimport.StatusAlreadyDone) || r[2] != strconv.FormatInt(id, 10) {
			t.Errorf("%s: last results line %v, server id %d", email, r, id)
			continue
		}
		var hash string
		if err := storetest.DB(t, st).NewSelect().Table("users").Column("password_hash").Where("email = ?", email).Scan(ctx, &hash); err != nil {
			t.Fatal(err)
		}
		if !server.VerifyPassword(hash, password[email]) {
			t.Errorf("%s: the results file's password is not the one stored", email)
		}
	}
	if !strings.Contains(string(out), "failed 0 of 200 rows") {
		t.Errorf("last run's summary: %s", out)
	}
}
