package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/store/storetest"
)

// call sends one API request and decodes a 200's body into out (when not
// nil); it returns the status.
func call(t *testing.T, method, url, key, body string, out any) int {
	t.Helper()
	st, err := tryCall(method, url, key, body, out)
	must(t, err)
	return st
}

// tryCall is call for a goroutine: the error instead of failing the test.
func tryCall(method, url, key, body string, out any) (int, error) {
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("X-API-Key", key)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		return 0, err
	}
	if res.StatusCode == 200 && out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			return 0, fmt.Errorf("%s %s: %v: %s", method, url, err, b)
		}
	}
	return res.StatusCode, nil
}

// A backup taken while serve creates trainees (another process writing
// the same SQLite file) holds every trainee whose create was answered
// before the backup began, with its tracked data, the company's webhook
// and automation and the events of those creates; the copy passes
// PRAGMA integrity_check and serves. backup refuses to overwrite a file
// without --force (exit 1, the file untouched) and replaces it with it.
func TestBackupWhileServing(t *testing.T) {
	db := storetest.SQLiteURL(t)
	cid := strings.TrimSpace(ok(t, db, "company", "create", "--name", "Backup Gym"))
	ok(t, db, "trainer", "create", "--company", cid, "--name", "Coach", "--email", "coach@backup.example")
	key := strings.TrimSpace(ok(t, db, "key", "create", "--company", cid, "--name", "backup"))
	rc := storetest.NewReceiver(t, storetest.OK)
	ok(t, db, "webhook", "add", "--company", cid, "--url", rc.URL, "--webhook-allow", "127.0.0.0/8")
	base, cmd, logs := startServer(t, db, "--webhook-allow", "127.0.0.0/8")
	var auto struct {
		Automation api.Automation `json:"automation"`
	}
	if st := call(t, "POST", base+"/public-api/automations", key,
		`{"name":"Tell the CRM","trigger":{"type":"TRAINEE_CREATED"},"actionType":"WEBHOOK","action":{"url":"`+rc.URL+`"}}`, &auto); st != 200 {
		t.Fatalf("automation create: %d", st)
	}
	create := func(i int) (int64, int, error) {
		var env api.TraineeEnvelope
		st, err := tryCall("POST", base+"/public-api/trainees", key,
			fmt.Sprintf(`{"name":"Backup %d","email":"backup%d@example.com","password":"backup password"}`, i, i), &env)
		return env.Trainee.ID, st, err
	}
	// Tracked data of the first trainees.
	var tracked []int64
	var lines []string
	for i := range 4 {
		id, st, err := create(i)
		if err != nil || st != 200 {
			t.Fatalf("create: %d %v", st, err)
		}
		tracked = append(tracked, id)
		lines = append(lines, fmt.Sprintf(`{"type":"weight","traineeId":%d,"date":"01-11-2025","weight":%d,"unit":"KG"}`, id, 70+i),
			fmt.Sprintf(`{"type":"steps","traineeId":%d,"date":"01-11-2025","steps":%d}`, id, 9000+i))
	}
	ok(t, db, "ingest", "--company", cid, writeFile(t, strings.Join(lines, "\n")+"\n"))

	// A stream of creates; those answered before the backup began must be in it.
	var (
		began   atomic.Bool
		mu      sync.Mutex
		before  = append([]int64(nil), tracked...)
		after   int
		halt    = make(chan struct{})
		done    = make(chan struct{})
		warm    = make(chan struct{}) // 20 creates answered
		enough  = make(chan struct{}) // 20 more answered after the backup began
		errs    []string
		created atomic.Int64
	)
	go func() {
		defer close(done)
		for i := 100; ; i++ {
			select {
			case <-halt:
				return
			default:
			}
			id, st, err := create(i)
			mu.Lock()
			switch {
			case err != nil || st != 200:
				errs = append(errs, fmt.Sprintf("create %d: status %d %v", i, st, err))
			case !began.Load():
				before = append(before, id)
			default:
				if after++; after == 20 {
					close(enough)
				}
			}
			mu.Unlock()
			if created.Add(1) == 20 {
				close(warm)
			}
		}
	}()
	<-warm
	dir := t.TempDir()
	backup := filepath.Join(dir, "backup.db")
	began.Store(true)
	out, errOut, code := traineed(t, db, "backup", "--to", backup)
	if code != 0 || !strings.HasPrefix(out, backup+"\t") {
		t.Fatalf("backup: exit %d, %q, %s", code, out, errOut)
	}
	<-enough // creates go on after the backup
	close(halt)
	<-done
	mu.Lock()
	if len(errs) > 0 {
		t.Fatalf("creates failed during the backup: %v", errs)
	}
	t.Logf("%d trainees answered before the backup began, %d after", len(before), after)
	mu.Unlock()

	// Refused without --force, the file untouched.
	kept, err := os.ReadFile(backup)
	must(t, err)
	if _, errOut, code := traineed(t, db, "backup", "--to", backup); code != 1 ||
		!strings.Contains(errOut, "the backup file already exists: "+backup+" (--force replaces it)") {
		t.Fatalf("backup over a backup: exit %d: %s", code, errOut)
	}
	if now, _ := os.ReadFile(backup); !bytes.Equal(now, kept) {
		t.Fatal("the refused backup changed the file")
	}
	stop2 := filepath.Join(dir, "forced.db")
	must(t, os.WriteFile(stop2, []byte("old"), 0o600))
	if _, errOut, code := traineed(t, db, "backup", "--to", stop2, "--force"); code != 0 {
		t.Fatalf("backup --force: exit %d: %s", code, errOut)
	}
	if n := countTrainees(t, stop2); n != len(before)+after {
		t.Fatalf("the forced backup holds %d trainees, %d were created", n, len(before)+after)
	}
	stop(t, cmd, logs)

	// Restore: the copy, in a fresh place, checked and served.
	restored := filepath.Join(t.TempDir(), "restored.db")
	must(t, os.WriteFile(restored, kept, 0o600))
	raw, err := sql.Open("sqlite", restored)
	must(t, err)
	var integrity string
	must(t, raw.QueryRow("PRAGMA integrity_check").Scan(&integrity))
	must(t, raw.Close())
	if integrity != "ok" {
		t.Fatalf("integrity_check: %s", integrity)
	}
	base, cmd, logs = startServer(t, "sqlite:"+restored, "--webhook-dispatch=false", "--automations=false")
	defer stop(t, cmd, logs)
	for _, id := range before {
		var env api.TraineeEnvelope
		if st := call(t, "GET", base+"/public-api/trainees/"+strconv.FormatInt(id, 10), key, "", &env); st != 200 || env.Trainee.ID != id {
			t.Fatalf("trainee %d after the restore: %d", id, st)
		}
	}
	for i, id := range tracked {
		var w api.WeightHistory
		var s api.DailySteps
		path := base + "/public-api/trainees/" + strconv.FormatInt(id, 10)
		if st := call(t, "GET", path+"/weight-history?from=01-11-2025&to=01-11-2025", key, "", &w); st != 200 ||
			len(w.Entries) != 1 || w.Entries[0].Weight != float64(70+i) {
			t.Fatalf("weights of %d: %d %+v", id, st, w)
		}
		if st := call(t, "GET", path+"/steps?from=01-11-2025&to=01-11-2025", key, "", &s); st != 200 ||
			len(s.Days) != 1 || s.Days[0].Steps != int64(9000+i) {
			t.Fatalf("steps of %d: %d %+v", id, st, s)
		}
	}
	var hooks api.WebhookList
	if st := call(t, "GET", base+"/public-api/webhooks", key, "", &hooks); st != 200 || len(hooks.Webhooks) != 1 || hooks.Webhooks[0].URL != rc.URL {
		t.Fatalf("webhooks after the restore: %d %+v", st, hooks)
	}
	var autos api.AutomationPage
	if st := call(t, "GET", base+"/public-api/automations", key, "", &autos); st != 200 || len(autos.Content) != 1 ||
		autos.Content[0].ID != auto.Automation.ID || autos.Content[0].Name != "Tell the CRM" {
		t.Fatalf("automations after the restore: %d %+v", st, autos)
	}
	createdEvents := map[int64]bool{}
	for after := ""; ; {
		var page api.EventPage
		if st := call(t, "GET", base+"/public-api/events?type=trainee.created&limit=500&after="+after, key, "", &page); st != 200 {
			t.Fatalf("events: %d", st)
		}
		for _, ev := range page.Events {
			var p struct {
				Data struct {
					Trainee struct {
						ID int64 `json:"id"`
					} `json:"trainee"`
				} `json:"data"`
			}
			must(t, json.Unmarshal(ev.Payload, &p))
			createdEvents[p.Data.Trainee.ID] = true
		}
		if !page.HasMore {
			break
		}
		after = page.Next
	}
	for _, id := range before {
		if !createdEvents[id] {
			t.Fatalf("trainee %d's trainee.created event is not in the restored feed (%d events)", id, len(createdEvents))
		}
	}
	// One snapshot: no create is in the copy without its event, nor the reverse.
	if n := countTrainees(t, restored); n != len(createdEvents) || n < len(before) {
		t.Fatalf("the copy holds %d trainees, %d trainee.created events, %d answered before", n, len(createdEvents), len(before))
	}
}

// countTrainees counts the trainees of a SQLite file.
func countTrainees(t *testing.T, path string) int {
	t.Helper()
	raw, err := sql.Open("sqlite", path)
	must(t, err)
	defer raw.Close()
	var n int
	must(t, raw.QueryRowContext(context.Background(), "SELECT count(*) FROM trainees").Scan(&n))
	return n
}

// On PostgreSQL, backup backs nothing up, says what to run instead and
// exits 1.
func TestBackupPostgresExplains(t *testing.T) {
	db := storetest.PostgresURL(t)
	ok(t, db, "migrate")
	to := filepath.Join(t.TempDir(), "x.db")
	_, errOut, code := traineed(t, db, "backup", "--to", to)
	if code != 1 || !strings.Contains(errOut, "pg_dump -Fc") || !strings.Contains(errOut, "pg_restore") ||
		!strings.Contains(errOut, "point-in-time recovery") || !strings.Contains(errOut, "error: nothing backed up: the database is PostgreSQL") {
		t.Fatalf("backup on PostgreSQL: exit %d: %s", code, errOut)
	}
	if _, err := os.Stat(to); !os.IsNotExist(err) {
		t.Fatalf("a file was written: %v", err)
	}
}
