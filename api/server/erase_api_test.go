package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/uptrace/bun"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/store"
	"github.com/traineed/traineed/store/storetest"
)

// person is a trainee with everything the erase must remove: a profile
// changed once (the old e-mail lives on in events), tracked data of every
// kind, an idempotency record of its create, events with deliveries, and
// a receiver's answer echoing a delivery's body.
type person struct {
	t        *api.Trainee
	needles  []string // what no row may hold after the erase
	oldEmail string
}

func (e *env) person(t *testing.T, name, phone string) *person {
	t.Helper()
	body := newTraineeBody(name)
	body["phoneNumber"] = phone
	body["dateOfBirth"] = "02-03-1990"
	oldEmail := body["email"].(string)
	created := doOn(t, e.srv.URL, "POST", "/public-api/trainees", e.keyA, body, idemHeader("create-"+url.QueryEscape(oldEmail))).expect(t, 200).trainee(t)
	newEmail := "renamed." + oldEmail
	tr := e.do("PUT", fmt.Sprintf("/public-api/trainees/%d", created.ID), e.keyA, map[string]any{"email": newEmail}).expect(t, 200).trainee(t)
	ctx := context.Background()
	name2 := "Wrist " + name
	day := api.DateFromInt(20261101)
	recs := []api.TrackedRecord{
		{Type: api.RecordWeight, TraineeID: tr.ID, Date: day, WeightKG: 71.3},
		{Type: api.RecordMeasurement, TraineeID: tr.ID, Date: day, Measurement: api.Measurement{Type: api.MeasureCustom, Name: &name2, Value: 16.5, Unit: api.UnitCM}},
		{Type: api.RecordNutrition, TraineeID: tr.ID, Date: day, Meal: api.MealLunch, Item: api.NutritionItem{Name: "Oats", Quantity: 80, Unit: "g", Calories: 300, Protein: 10, Carbs: 50, Fat: 5}},
		{Type: api.RecordSteps, TraineeID: tr.ID, Date: day, Steps: 9000},
		{Type: api.RecordWorkout, TraineeID: tr.ID, Date: day},
	}
	res, err := e.store.IngestTracked(ctx, e.companyA, recs)
	must(t, err)
	for i, r := range res {
		if r.Status == api.IngestRejected {
			t.Fatalf("record %d rejected: %s", i, r.Reason)
		}
	}
	return &person{t: tr, oldEmail: oldEmail, needles: []string{oldEmail, newEmail, name, phone, name2}}
}

// echoAnswers records, for every delivery of the trainee's events, an
// attempt whose response echoes the body sent (as receivers do).
func echoAnswers(t *testing.T, db *bun.DB, traineeID int64) {
	t.Helper()
	_, err := db.ExecContext(context.Background(), `INSERT INTO webhook_attempts (delivery_id, attempt, started_at, status_code, latency_us, error, response)
		SELECT d.id, 1, d.created_at, 400, 1000, 'the receiver said no', e.payload
		FROM webhook_deliveries AS d JOIN webhook_events AS e ON e.id = d.event_id WHERE e.trainee_id = ?`, traineeID)
	must(t, err)
}

// rowsHolding counts, in every column of every table of the database
// (listed from its catalog, so a table or column added later is scanned
// too), the values that hold needle, case-insensitively. It returns the
// table.column of each hit.
func rowsHolding(t *testing.T, s *store.Store, db *bun.DB, needle string) []string {
	t.Helper()
	ctx := context.Background()
	var cols [][2]string
	if s.Dialect() == store.DialectPostgres {
		rows, err := db.QueryContext(ctx, `SELECT c.table_name, c.column_name FROM information_schema.columns AS c
			JOIN information_schema.tables AS tb ON tb.table_schema = c.table_schema AND tb.table_name = c.table_name
			WHERE c.table_schema = current_schema() AND tb.table_type = 'BASE TABLE'`)
		must(t, err)
		for rows.Next() {
			var c [2]string
			must(t, rows.Scan(&c[0], &c[1]))
			cols = append(cols, c)
		}
		must(t, rows.Err())
		rows.Close()
	} else {
		var tables []string
		must(t, db.NewRaw("SELECT name FROM sqlite_master WHERE type = 'table'").Scan(ctx, &tables))
		for _, tb := range tables {
			var names []string
			must(t, db.NewRaw("SELECT name FROM pragma_table_info(?)", tb).Scan(ctx, &names))
			for _, n := range names {
				cols = append(cols, [2]string{tb, n})
			}
		}
	}
	if len(cols) < 40 {
		t.Fatalf("the catalog lists %d columns: the scan would prove nothing", len(cols))
	}
	var hits []string
	for _, c := range cols {
		q := fmt.Sprintf(`SELECT COUNT(*) FROM %q WHERE LOWER(CAST(%q AS TEXT)) LIKE ?`, c[0], c[1])
		var n int
		must(t, db.NewRaw(q, "%"+strings.ToLower(needle)+"%").Scan(ctx, &n))
		if n > 0 {
			hits = append(hits, fmt.Sprintf("%s.%s (%d)", c[0], c[1], n))
		}
	}
	return hits
}

func TestEraseTrainee(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		db := storetest.DB(t, e.store)
		storetest.AddWebhook(t, e.store, e.companyA, "https://hooks.example/a")
		// An automation.fired of each update carries the trainee too.
		e.createAutomation(e.keyA, `{"name": "changed to CRM", "trigger": {"type": "TRAINEE_UPDATED"}, "actionType": "WEBHOOK", "action": {"url": "http://127.0.0.1:9/never"}}`)
		p := e.person(t, "Zoë Quillfeather", "+447700900417")
		other := e.person(t, "Ulrike Brandtmeyer", "+447700900418")
		echoAnswers(t, db, p.t.ID)
		id := p.t.ID
		path := fmt.Sprintf("/public-api/trainees/%d", id)
		for _, n := range p.needles {
			if hits := rowsHolding(t, e.store, db, n); len(hits) == 0 {
				t.Fatalf("before the erase no row holds %q: the scan finds nothing", n)
			}
		}

		// Refused: nothing changes.
		e.do("POST", path+"/erase", e.keyA, map[string]any{"confirm": p.oldEmail}).expectError(t, api.CodeEraseNotConfirmed, "confirm")
		e.do("POST", path+"/erase", e.keyA, map[string]any{}).expectError(t, api.CodeRequired, "confirm")
		e.do("POST", path+"/erase", e.readKey(e.companyA), map[string]any{"confirm": p.t.Email}).expect(t, 403)
		e.do("POST", path+"/erase", e.keyB, map[string]any{"confirm": p.t.Email}).expectNotFound(t)
		e.do("GET", path+"/export", e.keyB, nil).expectNotFound(t)
		if got := e.do("GET", path, e.keyA, nil).expect(t, 200).trainee(t); got.Email != p.t.Email {
			t.Fatalf("after the refusals the trainee is %+v", got)
		}
		if n := storetest.Count(t, e.store, "weight_entries", "trainee_id = ?", id); n != 1 {
			t.Fatalf("a refused erase left %d weights, want 1", n)
		}

		// Erased, with the e-mail in another case and spaces.
		var env api.ErasedEnvelope
		e.do("POST", path+"/erase", e.keyA, map[string]any{"confirm": "  " + strings.ToUpper(p.t.Email) + " "}).expect(t, 200).JSON(t, &env)
		if env.Erased == nil || env.Erased.ID != id || env.Erased.CompanyID != e.companyA || env.Erased.UserID != p.t.UserID {
			t.Fatalf("erase answered %+v", env.Erased)
		}
		for _, n := range p.needles {
			if hits := rowsHolding(t, e.store, db, n); len(hits) > 0 {
				t.Errorf("after the erase %q is still in %v", n, hits)
			}
		}
		for _, n := range other.needles[1:] {
			if hits := rowsHolding(t, e.store, db, n); len(hits) == 0 {
				t.Errorf("the other trainee's %q is gone too", n)
			}
		}
		for _, table := range []string{"weight_entries", "measurements", "nutrition_items", "daily_steps", "workouts"} {
			if n := storetest.Count(t, e.store, table, "trainee_id = ?", id); n != 0 {
				t.Errorf("%s keeps %d rows of the erased trainee", table, n)
			}
			if n := storetest.Count(t, e.store, table, "trainee_id = ?", other.t.ID); n != 1 {
				t.Errorf("%s keeps %d rows of the other trainee, want 1", table, n)
			}
		}
		if n := storetest.Count(t, e.store, "erased_trainees", "id = ? AND company_id = ?", id, e.companyA); n != 1 {
			t.Errorf("%d tombstones, want 1", n)
		}
		checkRedacted(t, db, id)
		checkErasedEvent(t, e, id)

		// Afterwards: an unknown id, everywhere; the erase again is the same 200.
		e.do("GET", path, e.keyA, nil).expectNotFound(t)
		e.do("GET", path+"/export", e.keyA, nil).expectNotFound(t)
		e.do("PUT", path, e.keyA, map[string]any{"name": "Back"}).expectNotFound(t)
		var again api.ErasedEnvelope
		e.do("POST", path+"/erase", e.keyA, map[string]any{"confirm": "anything"}).expect(t, 200).JSON(t, &again)
		if *again.Erased != *env.Erased {
			t.Errorf("erase again answered %+v, first %+v", again.Erased, env.Erased)
		}
		e.do("POST", path+"/erase", e.keyB, map[string]any{"confirm": "anything"}).expectNotFound(t)
		var page api.TraineePage
		e.do("GET", "/public-api/trainees/search?status=all&q=quillfeather", e.keyA, nil).expect(t, 200).JSON(t, &page)
		if len(page.Content) != 0 {
			t.Errorf("search still lists %v", page.Content)
		}
		// The e-mail address is free again.
		body := newTraineeBody("Zoë Again")
		body["email"] = p.t.Email
		e.create(e.keyA, body)
	})
}

// checkRedacted asserts every event of the trainee names it by id alone,
// and no receiver's answer to their deliveries is kept.
func checkRedacted(t *testing.T, db *bun.DB, id int64) {
	t.Helper()
	var payloads []string
	must(t, db.NewRaw("SELECT payload FROM webhook_events WHERE trainee_id = ? ORDER BY id", id).Scan(context.Background(), &payloads))
	if len(payloads) < 4 { // created, updated, automation.fired, erased
		t.Fatalf("%d events of the trainee, want at least 3", len(payloads))
	}
	for _, p := range payloads {
		var ev api.RedactedEvent
		var raw struct {
			Data struct {
				Trainee map[string]any `json:"trainee"`
			} `json:"data"`
		}
		if json.Unmarshal([]byte(p), &ev) != nil || json.Unmarshal([]byte(p), &raw) != nil || len(raw.Data.Trainee) != 1 || ev.Data.Trainee.ID != id || ev.Timestamp == 0 {
			t.Errorf("payload not redacted: %s", p)
		}
		if ev.Type == api.EventAutomationFired && !strings.Contains(p, `"automation":{"id":`) {
			t.Errorf("automation.fired lost its automation: %s", p)
		}
	}
	var kept int
	must(t, db.NewRaw(`SELECT COUNT(*) FROM webhook_attempts AS a JOIN webhook_deliveries AS d ON d.id = a.delivery_id
		JOIN webhook_events AS e ON e.id = d.event_id WHERE e.trainee_id = ? AND a.response IS NOT NULL`, id).Scan(context.Background(), &kept))
	if kept != 0 {
		t.Errorf("%d receivers' answers kept", kept)
	}
}

// checkErasedEvent asserts trainee.erased is in the feed (the id alone)
// and scheduled for the company's endpoint.
func checkErasedEvent(t *testing.T, e *env, id int64) {
	t.Helper()
	var feed api.EventPage
	e.do("GET", "/public-api/events?"+url.Values{"type": {api.EventTraineeErased}}.Encode(), e.keyA, nil).expect(t, 200).JSON(t, &feed)
	if len(feed.Events) != 1 {
		t.Fatalf("feed holds %d trainee.erased events, want 1", len(feed.Events))
	}
	want := fmt.Sprintf(`{"type":"trainee.erased","timestamp":%d,"data":{"trainee":{"id":%d},"changedFields":[]}}`, fixedNowUnixOf(t, feed.Events[0].Payload), id)
	if string(feed.Events[0].Payload) != want {
		t.Errorf("trainee.erased payload %s, want %s", feed.Events[0].Payload, want)
	}
	if n := storetest.Count(t, e.store, "webhook_deliveries", "event_id IN (SELECT id FROM webhook_events WHERE type = ? AND trainee_id = ?)", api.EventTraineeErased, id); n != 1 {
		t.Errorf("trainee.erased has %d deliveries, want 1", n)
	}
}

func fixedNowUnixOf(t *testing.T, payload []byte) int64 {
	t.Helper()
	var ev api.RedactedEvent
	must(t, json.Unmarshal(payload, &ev))
	return ev.Timestamp
}

func TestExportTrainee(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		p := e.person(t, "Ines Export", "+447700900419")
		path := fmt.Sprintf("/public-api/trainees/%d/export", p.t.ID)
		var x api.TraineeExport
		e.do("GET", path, e.keyA, nil).expect(t, 200).JSON(t, &x)
		if x.Trainee == nil || x.Trainee.Email != p.t.Email || x.Trainer == nil || x.Trainer.ID != e.trainerA[0] {
			t.Fatalf("export %+v", x)
		}
		if len(x.Weight) != 1 || x.Weight[0].WeightKG != 71.3 || len(x.Measurements) != 1 || *x.Measurements[0].Name != "Wrist Ines Export" ||
			len(x.Nutrition) != 1 || x.Nutrition[0].Name != "Oats" || x.Nutrition[0].Meal != api.MealLunch ||
			len(x.Steps) != 1 || x.Steps[0].Steps != 9000 || len(x.Workouts) != 1 || x.Workouts[0].Int() != 20261101 {
			t.Fatalf("tracked data %+v", x)
		}
		var empty api.TraineeExport
		e.do("GET", path+"?from=02-11-2026", e.keyA, nil).expect(t, 200).JSON(t, &empty)
		if len(empty.Weight)+len(empty.Measurements)+len(empty.Nutrition)+len(empty.Steps)+len(empty.Workouts) != 0 || empty.From == nil {
			t.Fatalf("from after the data: %+v", empty)
		}
		e.do("GET", path+"?from=02-11-2026&to=01-11-2026", e.keyA, nil).expectError(t, api.CodeInvalidRange, "from")
		e.do("GET", path+"?to=31-02-2026", e.keyA, nil).expectError(t, api.CodeInvalidDate, "to")
		e.do("GET", path, e.keyB, nil).expectNotFound(t)
		e.do("GET", path, e.readKey(e.companyA), nil).expect(t, 200)
	})
}
