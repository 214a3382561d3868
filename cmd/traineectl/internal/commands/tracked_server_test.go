package commands_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/client"
	"github.com/traineed/traineed/api/server"
	"github.com/traineed/traineed/cmd/traineed/demo"
	"github.com/traineed/traineed/store/storetest"
)

// The tracked-data commands against the real server over the demo data set:
// -o json prints exactly the API's response without its timestamp.
func TestTrackedAgainstDemoServer(t *testing.T) {
	ctx := context.Background()
	h, c := demoServer(t)

	page, err := c.SearchTrainees(ctx, client.SearchParams{Size: 100})
	must(t, err)
	// The first demo trainee with a year of weights.
	var id int64
	for _, tr := range page.Content {
		w, err := c.WeightHistory(ctx, tr.ID, client.TrackedRange{From: api.Date{Year: 2025, Month: 11, Day: 22}, To: api.Date{Year: 2026, Month: 11, Day: 21}})
		must(t, err)
		if len(w.Entries) > 200 {
			id = tr.ID
			break
		}
	}
	if id == 0 {
		t.Fatal("no demo trainee with a year of weights")
	}
	sid := fmt.Sprint(id)
	sameJSON := func(got string, want any) {
		t.Helper()
		var a, b map[string]any
		must(t, json.Unmarshal([]byte(got), &a))
		raw, _ := json.Marshal(want)
		must(t, json.Unmarshal(raw, &b))
		delete(b, "timestamp")
		if _, ok := a["timestamp"]; ok {
			t.Errorf("-o json kept the timestamp")
		}
		if !reflect.DeepEqual(a, b) {
			t.Errorf("-o json differs from the API:\n%s\nwant %s", got, raw)
		}
	}
	w, err := c.WeightHistory(ctx, id, client.TrackedRange{From: api.Date{Year: 2025, Month: 11, Day: 22}, To: api.Date{Year: 2026, Month: 11, Day: 21}})
	must(t, err)
	sameJSON(h.run("weight", sid, "--from", "2025-11-22", "--to", "21-11-2026", "-o", "json").expect(t, 0).out, w)
	m, err := c.Measurements(ctx, id, client.TrackedRange{From: api.Date{Year: 2025, Month: 11, Day: 22}, To: api.Date{Year: 2026, Month: 11, Day: 21}}, "")
	must(t, err)
	if len(m.Measurements) == 0 {
		t.Fatal("demo trainee without measurements")
	}
	sameJSON(h.run("measurements", sid, "--from", "22-11-2025", "--to", "21-11-2026", "-o", "json").expect(t, 0).out, m)
	steps, err := c.AverageSteps(ctx, id)
	must(t, err)
	sameJSON(h.run("steps", sid, "-o", "json").expect(t, 0).out, steps)
	daily, err := c.Steps(ctx, id, client.TrackedRange{From: api.Date{Year: 2026, Month: 10, Day: 23}, To: api.Date{Year: 2026, Month: 11, Day: 21}})
	must(t, err)
	if len(daily.Days) == 0 {
		t.Fatal("demo trainee without daily steps")
	}
	sameJSON(h.run("steps", sid, "--from", "23-10-2026", "--to", "21-11-2026", "-o", "json").expect(t, 0).out, daily)
	sameJSON(h.run("steps", sid, "--daily", "-o", "json").expect(t, 0).out, daily) // the default range: the same 30 days
	if r := h.run("steps", sid, "--daily"); !strings.Contains(r.out, "STEPS") || strings.Count(r.out, "\n") < len(daily.Days)+1 {
		t.Errorf("daily steps table:\n%s", r.out)
	}
	n, err := c.Nutrition(ctx, id, api.Date{Year: 2026, Month: 11, Day: 20})
	must(t, err)
	sameJSON(h.run("nutrition", sid, "--date", "20-11-2026", "-o", "json").expect(t, 0).out, n)

	// Tables: a header and one row per weight.
	r := h.run("weight", sid, "--from", "22-11-2025", "--to", "21-11-2026").expect(t, 0)
	if !strings.Contains(strings.ToUpper(r.out), "WEIGHT") || strings.Count(r.out, "\n") < len(w.Entries) {
		t.Errorf("weight table:\n%s", r.out)
	}
	// A range over a year is the server's 1011, exit 5, told in the
	// flags' terms: the default of --to, not the query's "to:".
	r = h.run("weight", sid, "--from", "01-01-2025", "--to", "21-11-2026")
	if r.code != 5 || !strings.Contains(r.err, "1011") || !strings.Contains(r.err, "--from 01-01-2025 to --to 21-11-2026 is longer than one year: give --to 01-01-2026 or earlier") {
		t.Errorf("range over a year: %s", r)
	}
	r = h.run("weight", sid, "--from", "01-01-2020")
	if r.code != 5 || strings.Contains(r.err, "to:") || !strings.Contains(r.err, "request rejected (1011): the range from --from 01-01-2020 to today (the default of --to) is longer than one year") {
		t.Errorf("--from alone over a year: %s", r)
	}
	r = h.run("measurements", sid, "--from", "01-01-2020", "-o", "json")
	if r.code != 5 || !strings.Contains(r.err, `"errorCode":1011,"message":"the range from --from 01-01-2020 to today (the default of --to)`) {
		t.Errorf("measurements --from alone: %s", r)
	}
	r = h.run("measurements", sid, "--from", "02-01-2026", "--to", "01-01-2026")
	if r.code != 5 || !strings.Contains(r.err, "--from 02-01-2026 is after --to 01-01-2026") {
		t.Errorf("from after to: %s", r)
	}
}

// demoServer serves the demo data set (SQLite, the tests' clock, loopback
// webhooks allowed) and gives a harness and a client with its key.
func demoServer(t *testing.T) (*harness, *client.Client) {
	t.Helper()
	ctx := context.Background()
	st := storetest.SQLite(t)
	hash, err := cheapHasher.Hash(ctx, "demo-password")
	must(t, err)
	_, key, err := demo.Load(ctx, st, hash, testNow)
	must(t, err)
	srv := httptest.NewServer(server.NewHandler(st, server.WithHasher(cheapHasher), server.WithOutbound(storetest.LoopbackOutbound()),
		server.WithClock(func() time.Time { return testNow })))
	t.Cleanup(srv.Close)
	return newHarness(t, srv.URL, key), client.New(srv.URL, key)
}
