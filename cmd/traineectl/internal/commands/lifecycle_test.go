package commands_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/server"
	"github.com/traineed/traineed/cmd/traineectl/internal/bulkexport"
	"github.com/traineed/traineed/cmd/traineectl/internal/bulkimport"
	"github.com/traineed/traineed/store"
	"github.com/traineed/traineed/store/storetest"
)

// newServerOn is newServer over st.
func newServerOn(t *testing.T, st *store.Store) *testServer {
	t.Helper()
	ctx := context.Background()
	c, err := st.CreateCompany(ctx, "Acme", "UTC")
	must(t, err)
	tr, err := st.CreateTrainer(ctx, c.ID, "Coach Carter", "coach@acme.example")
	must(t, err)
	srv := httptest.NewServer(server.NewHandler(st, server.WithHasher(cheapHasher), server.WithOutbound(storetest.LoopbackOutbound()), server.WithClock(func() time.Time { return testNow })))
	t.Cleanup(srv.Close)
	s := &testServer{url: srv.URL, store: st, companyID: c.ID, trainerID: tr.ID}
	s.key = s.newKey(t, c.ID)
	return s
}

// ingest stores a weight and a step count of the trainee on 01-11-2026.
func (s *testServer) ingest(t *testing.T, id int64) {
	t.Helper()
	day := api.DateFromInt(20261101)
	_, err := s.store.IngestTracked(context.Background(), s.companyID, []api.TrackedRecord{
		{Type: api.RecordWeight, TraineeID: id, Date: day, WeightKG: 80.25},
		{Type: api.RecordSteps, TraineeID: id, Date: day, Steps: 12000},
	})
	must(t, err)
}

func TestEraseCommand(t *testing.T) {
	srv := newServer(t)
	h := newHarness(t, srv.url, srv.key)
	tr := storetest.MustCreate(t, srv.store, srv.companyID, storetest.NewTrainee("Ada Park", "ada@example.com"))
	srv.ingest(t, tr.ID)
	id := fmt.Sprint(tr.ID)

	r := h.run("erase", id).expect(t, 2)
	if !strings.Contains(r.err, "--confirm") {
		t.Errorf("refusal without a terminal: %s", r)
	}
	h.run("erase", id, "--confirm", "bo@example.com").expect(t, 5)
	h.runWith(runOpts{tty: true, stdin: "\n"}, "erase", id).expect(t, 2)
	h.run("get", id).expect(t, 0) // nothing erased yet

	r = h.runWith(runOpts{tty: true, stdin: "ADA@example.com\n"}, "erase", id).expect(t, 0)
	if !strings.Contains(r.err, "Type their e-mail address") || !strings.Contains(r.err, "Ada Park") || !strings.Contains(r.err, "Erased trainee "+id) {
		t.Errorf("the question and the note: %s", r)
	}
	h.run("get", id).expect(t, 4)
	h.run("export", id).expect(t, 4)
	e := decode[api.ErasedTrainee](t, h.run("erase", id, "--confirm", "anything", "-o", "json").expect(t, 0))
	if e.ID != tr.ID || e.UserID != tr.UserID || e.ErasedAt.IsZero() {
		t.Errorf("erase again: %+v", e)
	}
	h.run("erase", "999999", "--confirm", "x@example.com").expect(t, 4)
}

func TestExportOneCommand(t *testing.T) {
	srv := newServer(t)
	h := newHarness(t, srv.url, srv.key)
	tr := storetest.MustCreate(t, srv.store, srv.companyID, storetest.NewTrainee("Ada Park", "ada@example.com"))
	srv.ingest(t, tr.ID)
	id := fmt.Sprint(tr.ID)

	x := decode[api.TraineeExport](t, h.run("export", id).expect(t, 0))
	if x.Trainee == nil || x.Trainee.Email != "ada@example.com" || len(x.Weight) != 1 || x.Weight[0].WeightKG != 80.25 ||
		len(x.Steps) != 1 || x.Steps[0].Steps != 12000 || x.Trainer == nil || x.Trainer.Name != "Coach Carter" || x.Timestamp != 0 {
		t.Fatalf("export %+v", x)
	}
	if r := h.run("export", id, "--from", "2026-11-02"); !strings.Contains(r.out, `"weight": []`) {
		t.Errorf("--from after the data: %s", r)
	}
	if r := h.run("export", id, "-o", "yaml").expect(t, 0); !strings.Contains(r.out, "weightKg: 80.25") {
		t.Errorf("yaml: %s", r)
	}
	path := filepath.Join(t.TempDir(), "ada.json")
	h.run("export", id, "--file", path).expect(t, 0)
	fi, err := os.Stat(path)
	must(t, err)
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", fi.Mode().Perm())
	}
	b, err := os.ReadFile(path)
	must(t, err)
	if !json.Valid(b) || !bytes.Contains(b, []byte("ada@example.com")) {
		t.Errorf("file: %s", b)
	}
	h.run("export", id, "--status", "all").expect(t, 2)
	h.run("export", id, "-o", "csv").expect(t, 2)
	h.run("export", "999999").expect(t, 4)
}

// exportFixture creates trainees with every kind of value an export
// carries, and one soft-deleted: it returns the live ones, by id.
func exportFixture(t *testing.T, srv *testServer) []*api.Trainee {
	t.Helper()
	ctx := context.Background()
	phone := "+447700900123"
	dob, exp := api.DateFromInt(19900302), api.DateFromInt(20261231)
	specs := []api.NewTrainee{
		storetest.NewTrainee("Ada Park", "ada@example.com"),
		storetest.NewTrainee(`Zoë "Zo" O'Neil, Jr.`, "zoe@example.com"),
		storetest.NewTrainee("Łukasz Yılmaz", "lukasz@example.com"),
		storetest.NewTrainee("Gone Person", "gone@example.com"),
	}
	specs[0].PhoneNumber, specs[0].DateOfBirth, specs[0].ExpirationDate = &phone, &dob, &exp
	specs[1].WeightUnit = api.UnitLB
	var live []*api.Trainee
	for i, nt := range specs {
		tr := storetest.MustCreate(t, srv.store, srv.companyID, nt)
		if i == 3 {
			_, err := srv.store.UpdateTrainee(ctx, srv.companyID, tr.ID, api.TraineePatch{Enabled: api.Val(false)})
			must(t, err)
			continue
		}
		if i == 2 {
			var err error
			tr, err = srv.store.UpdateTrainee(ctx, srv.companyID, tr.ID, api.TraineePatch{TrainerID: api.Null[int64]()})
			must(t, err)
		}
		live = append(live, tr)
	}
	return live
}

// readBack reads an export with create -f's reader (bulkimport), every
// row valid, and returns the create bodies.
func readBack(t *testing.T, b []byte, format bulkimport.Format) []api.CreateRequest {
	t.Helper()
	rows, err := bulkimport.Read(bytes.NewReader(b), bulkimport.ReadOptions{Format: format, Today: api.DateOf(testNow), GeneratePasswords: true})
	if err != nil {
		t.Fatalf("create -f cannot read the export: %v\n%s", err, b)
	}
	var out []api.CreateRequest
	for _, r := range rows {
		if !r.Valid() {
			t.Fatalf("row %d of the export is refused by create -f: %+v\n%s", r.Num, r.Errors, b)
		}
		out = append(out, r.Req)
	}
	return out
}

// sameTrainees fails unless got holds want's create fields, in order.
func sameTrainees(t *testing.T, what string, got []api.CreateRequest, want []*api.Trainee) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d rows, want %d", what, len(got), len(want))
	}
	eq := func(a, b any) bool { x, _ := json.Marshal(a); y, _ := json.Marshal(b); return bytes.Equal(x, y) }
	for i, w := range want {
		g := got[i]
		if g.Name != w.Name || g.Email != w.Email || !eq(g.PhoneNumber, w.PhoneNumber) || !eq(g.DateOfBirth, w.DateOfBirth) ||
			!eq(g.ExpirationDate, w.ExpirationDate) || !eq(g.TrainerID, w.TrainerID) || g.WeightUnit != w.WeightUnit {
			t.Errorf("%s row %d: %+v, want %+v", what, i+1, g, w)
		}
	}
}

// The company's export, in each format, reads back through create -f's
// reader as the same trainees (export -> apply changes nothing).
func TestExportRoundTrip(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		srv := newServerOn(t, st)
		h := newHarness(t, srv.url, srv.key)
		live := exportFixture(t, srv)
		dir := t.TempDir()

		r := h.run("export").expect(t, 0)
		if first := strings.SplitN(r.out, "\n", 2)[0]; first != strings.Join(bulkexport.Columns, ",") {
			t.Errorf("CSV header %q", first)
		}
		sameTrainees(t, "csv", readBack(t, []byte(r.out), bulkimport.CSV), live)

		path := filepath.Join(dir, "t.jsonl")
		h.run("export", "--file", path).expect(t, 0)
		b, err := os.ReadFile(path)
		must(t, err)
		sameTrainees(t, "jsonl", readBack(t, b, bulkimport.JSONL), live)
		if r := h.run("export", "-o", "json").expect(t, 0); r.out != string(b) {
			t.Errorf("-o json is not the JSON Lines of --file t.jsonl:\n%s\n%s", r.out, b)
		}

		// YAML: a list of mappings with the JSON Lines' members.
		y := h.run("export", "--format", "yaml").expect(t, 0).out
		var items []map[string]any
		must(t, yaml.Unmarshal([]byte(y), &items))
		var lines bytes.Buffer
		for _, it := range items {
			line, err := json.Marshal(it)
			must(t, err)
			lines.Write(append(line, '\n'))
		}
		sameTrainees(t, "yaml", readBack(t, lines.Bytes(), bulkimport.JSONL), live)

		// --status all adds the deleted one; --query filters as search.
		if n := len(readBack(t, []byte(h.run("export", "--status", "all").expect(t, 0).out), bulkimport.CSV)); n != len(live)+1 {
			t.Errorf("--status all: %d rows, want %d", n, len(live)+1)
		}
		sameTrainees(t, "query", readBack(t, []byte(h.run("export", "--query", "zoë").expect(t, 0).out), bulkimport.CSV), live[1:2])
		empty := h.run("export", "--query", "nobody-at-all", "--format", "yaml").expect(t, 0).out
		if empty != "[]\n" {
			t.Errorf("an empty YAML export: %q", empty)
		}
	})
}

// exported is a line (or item) of an export with tracked data.
type exported struct {
	Name         string                 `json:"name"`
	TrainerID    *int64                 `json:"trainerId"`
	Weight       *[]api.ExportWeight    `json:"weight"`
	Measurements *[]api.Measurement     `json:"measurements"`
	Nutrition    *[]api.ExportNutrition `json:"nutrition"`
	Steps        *[]api.ExportSteps     `json:"steps"`
}

func TestExportWithTrackedData(t *testing.T) {
	srv := newServer(t)
	h := newHarness(t, srv.url, srv.key)
	live := exportFixture(t, srv)
	srv.ingest(t, live[0].ID)

	out := h.run("export", "--format", "jsonl", "--with", "weight,steps", "--parallel", "2").expect(t, 0).out
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != len(live) {
		t.Fatalf("%d lines, want %d:\n%s", len(lines), len(live), out)
	}
	var first exported
	must(t, json.Unmarshal([]byte(lines[0]), &first))
	if first.Weight == nil || len(*first.Weight) != 1 || (*first.Weight)[0].WeightKG != 80.25 || first.Steps == nil || len(*first.Steps) != 1 ||
		first.Measurements != nil || first.Nutrition != nil {
		t.Errorf("tracked data of the first: %s", lines[0])
	}
	if !strings.Contains(lines[1], `"weight":[]`) {
		t.Errorf("a trainee without weights has an empty list: %s", lines[1])
	}
	if out := h.run("export", "--format", "jsonl", "--with", "weight", "--from", "2026-11-02").expect(t, 0).out; strings.Contains(out, "80.25") {
		t.Errorf("--from after the data still exports it: %s", out)
	}
	var generic []map[string]any
	var items []exported
	y := h.run("export", "--format", "yaml", "--with", "weight,steps").expect(t, 0).out
	must(t, yaml.Unmarshal([]byte(y), &generic))
	j, err := json.Marshal(generic)
	must(t, err)
	must(t, json.Unmarshal(j, &items))
	if len(items) != len(live) || items[0].Weight == nil || len(*items[0].Weight) != 1 || (*items[0].Weight)[0].WeightKG != 80.25 ||
		items[1].Name != live[1].Name || items[0].TrainerID == nil || *items[0].TrainerID != *live[0].TrainerID {
		t.Errorf("yaml --with read back as %+v:\n%s", items, y)
	}
	h.run("export", "--with", "weight").expect(t, 2) // CSV
	h.run("export", "--jq", ".[].email").expect(t, 2)
	h.run("export", "--with", "heartbeat", "-o", "json").expect(t, 2)
	h.run("export", "--file", filepath.Join(t.TempDir(), "t.txt")).expect(t, 2)
	for _, k := range bulkexport.WithKinds {
		if !slices.Contains([]string{"weight", "measurements", "nutrition", "steps"}, k) {
			t.Errorf("unexpected kind %q", k)
		}
	}
}
