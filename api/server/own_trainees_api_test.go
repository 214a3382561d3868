package server_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/traineed/traineed/api"
)

// ownFixture is company A with trainees of both its trainers: ada and
// cleo (soft-deleted) of trainer A0, bob and dan (expiring in 3 days) of
// trainer A1, a limited key of A1 and a key bound to A0.
type ownFixture struct {
	ada, bob, cleo, dan *api.Trainee
	limited, bound      string
	admin               string
}

func newOwnFixture(t *testing.T, e *env) *ownFixture {
	t.Helper()
	f := &ownFixture{admin: e.adminKey(e.companyA)}
	mk := func(name string, trainer int64, extra map[string]any) *api.Trainee {
		b := newTraineeBody(name)
		b["trainerId"] = trainer
		for k, v := range extra {
			b[k] = v
		}
		return e.create(e.keyA, b)
	}
	f.ada = mk("Ada Park", e.trainerA[0], nil)
	f.cleo = mk("Cleo Park", e.trainerA[0], map[string]any{"expirationDate": "22-11-2026"})
	e.do("DELETE", "/public-api/trainees/"+strconv.FormatInt(f.cleo.ID, 10), e.keyA, nil).expect(t, 200)
	f.bob = mk("Bob Park", e.trainerA[1], nil)
	f.dan = mk("Dan Park", e.trainerA[1], map[string]any{"expirationDate": "24-11-2026"})
	f.limited = e.scopedKey(e.companyA, api.NewKey{Name: "coach two", Scope: api.KeyScopeFull, TrainerID: &e.trainerA[1], OwnTraineesOnly: true})
	f.bound = e.scopedKey(e.companyA, api.NewKey{Name: "coach one's phone", Scope: api.KeyScopeFull, TrainerID: &e.trainerA[0]})
	return f
}

// ids of a search's trainees, every page followed.
func searchIDs(t *testing.T, e *env, key, query string) []int64 {
	t.Helper()
	var ids []int64
	after := ""
	for {
		var page api.TraineePage
		q := query + "&limit=1"
		if after != "" {
			q += "&after=" + after
		}
		e.do("GET", api.PathSearch+"?"+q, key, nil).expect(t, 200).JSON(t, &page)
		for _, tr := range page.Content {
			ids = append(ids, tr.ID)
		}
		if page.Page.NextCursor == nil {
			if page.Page.TotalElements != int64(len(ids)) {
				t.Fatalf("%s: total %d for %d trainees", query, page.Page.TotalElements, len(ids))
			}
			return ids
		}
		after = *page.Page.NextCursor
	}
}

// A key limited to its trainer's trainees leaks nothing of the others:
// not in any search (every status, filter, sort, q, paging and total), not
// in the counts, the trainers' counts, the feed, an export or a tracked
// read; another trainer's trainee id answers as another company's; it
// cannot give a trainee to another trainer; what it creates is its
// trainer's. Its bulk update from a search (search, then PUT each) only
// ever reaches its own.
func TestOwnTraineesOnlyLeaksNothing(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		f := newOwnFixture(t, e)
		mine := []int64{f.bob.ID, f.dan.ID}
		for _, q := range []string{"status=all", "status=live", "status=active", "status=expired", "status=deleted", "q=park&status=all",
			"q=a&status=all&sort=name,desc", "expiresWithin=30d&status=all", "inactiveFor=14d", "createdSince=1d&status=all",
			"trainerId=" + strconv.FormatInt(e.trainerA[0], 10) + "&status=all", "q=" + f.ada.Email} {
			for _, id := range searchIDs(t, e, f.limited, q) {
				if !slices.Contains(mine, id) {
					t.Fatalf("%s: the limited key finds trainee %d", q, id)
				}
			}
		}
		if got := searchIDs(t, e, f.limited, "status=all"); len(got) != 2 {
			t.Fatalf("own trainees %v", got)
		}
		// Counts: the trainer's, equal to the admin's count of that trainer.
		var own, asked api.TraineeStats
		e.do("GET", api.PathStats, f.limited, nil).expect(t, 200).JSON(t, &own)
		e.do("GET", api.PathStats+"?trainerId="+strconv.FormatInt(e.trainerA[1], 10), f.admin, nil).expect(t, 200).JSON(t, &asked)
		own.Timestamp, asked.Timestamp = 0, 0
		if own != asked || own.Active != 2 || own.Deleted != 0 {
			t.Fatalf("limited key's counts %+v, trainer A1's %+v", own, asked)
		}
		var other api.TraineeStats
		e.do("GET", api.PathStats+"?trainerId="+strconv.FormatInt(e.trainerA[0], 10), f.limited, nil).expect(t, 200).JSON(t, &other)
		if other.Active+other.Expired+other.Deleted != 0 {
			t.Fatalf("another trainer's counts through the limited key: %+v", other)
		}
		var trainers api.TrainerList
		e.do("GET", api.PathTrainers+"?counts=true", f.limited, nil).expect(t, 200).JSON(t, &trainers)
		for _, tr := range trainers.Trainers {
			if (tr.ID == e.trainerA[1]) != (tr.Trainees != nil) {
				t.Fatalf("trainer %d count %v shown to the limited key", tr.ID, tr.Trainees)
			}
		}
		// Another trainer's trainee: exactly another company's answer.
		for _, path := range []string{"", "/weight-history", "/measurements", "/nutrition", "/average-steps", "/export"} {
			p := "/public-api/trainees/" + strconv.FormatInt(f.ada.ID, 10) + path
			e.do("GET", p, f.limited, nil).expectNotFound(t)
			e.do("GET", "/public-api/trainees/"+strconv.FormatInt(f.bob.ID, 10)+path, f.limited, nil).expect(t, 200)
		}
		adaPath := "/public-api/trainees/" + strconv.FormatInt(f.ada.ID, 10)
		e.do("PUT", adaPath, f.limited, map[string]any{"name": "Stolen"}).expectNotFound(t)
		e.do("DELETE", adaPath, f.limited, nil).expectNotFound(t)
		e.do("POST", adaPath+"/erase", f.limited, map[string]any{"confirm": f.ada.Email}).expectNotFound(t)
		if got := e.do("GET", adaPath, f.admin, nil).expect(t, 200).trainee(t); got.Name != "Ada Park" || !got.Enabled {
			t.Fatalf("ada changed: %+v", got)
		}
		// No giving trainees away; creating gives them to the trainer.
		bobPath := "/public-api/trainees/" + strconv.FormatInt(f.bob.ID, 10)
		e.do("PUT", bobPath, f.limited, map[string]any{"trainerId": e.trainerA[0]}).expectCode(t, http.StatusForbidden, api.CodeOwnTrainees)
		e.do("PUT", bobPath, f.limited, map[string]any{"trainerId": nil}).expectError(t, api.CodeRequired, "trainerId")
		withOther := newTraineeBody("Eve Park")
		withOther["trainerId"] = e.trainerA[0]
		e.do("POST", api.PathTrainees, f.limited, withOther).expectCode(t, http.StatusForbidden, api.CodeOwnTrainees)
		eve := e.create(f.limited, newTraineeBody("Eve Park"))
		if eve.TrainerID == nil || *eve.TrainerID != e.trainerA[1] {
			t.Fatalf("created with trainer %v", eve.TrainerID)
		}
		// The bulk update from a search: every trainee found is its own,
		// and every PUT goes through.
		for _, id := range searchIDs(t, e, f.limited, "status=all") {
			e.do("PUT", "/public-api/trainees/"+strconv.FormatInt(id, 10), f.limited, map[string]any{"expirationDate": "31-12-2027"}).expect(t, 200)
		}
		// The feed: its trainees' events only (no other trainee's, no
		// administration's).
		e.do("POST", api.PathKeys, f.admin, map[string]any{"name": "later", "scope": "read"}).expect(t, 200)
		var feed api.EventPage
		e.do("GET", api.PathEvents+"?limit=500", f.limited, nil).expect(t, 200).JSON(t, &feed)
		if len(feed.Events) == 0 {
			t.Fatal("the limited key's feed is empty")
		}
		ownIDs := append(mine, eve.ID)
		for _, ev := range feed.Events {
			var p api.WebhookEvent
			must(t, json.Unmarshal(ev.Payload, &p))
			if !strings.HasPrefix(ev.Type, "trainee.") || p.Data.Trainee == nil || !slices.Contains(ownIDs, p.Data.Trainee.ID) {
				t.Fatalf("the limited key's feed holds %s %s", ev.Type, ev.Payload)
			}
		}
		// Company-wide routes are refused outright.
		e.do("GET", api.PathWebhooks, f.limited, nil).expectCode(t, http.StatusForbidden, api.CodeOwnTrainees)
		e.do("GET", api.PathAutomations, f.limited, nil).expectCode(t, http.StatusForbidden, api.CodeOwnTrainees)
		e.do("GET", api.PathKeys, f.limited, nil).expectCode(t, http.StatusForbidden, api.CodeAdminScope)
	})
}

// A key bound to a trainer acts as that person: a trainee it creates
// without trainerId is the trainer's, and the feed names the trainer (with
// the trainer's id) for its changes.
func TestBoundKeyActsAsItsTrainer(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		f := newOwnFixture(t, e)
		tr := e.create(f.bound, newTraineeBody("Fay Park"))
		if tr.TrainerID == nil || *tr.TrainerID != e.trainerA[0] {
			t.Fatalf("trainer %v", tr.TrainerID)
		}
		var whoami api.CurrentKeyEnvelope
		e.do("GET", api.PathCurrentKey, f.bound, nil).expect(t, 200).JSON(t, &whoami)
		if k := whoami.Key; k.TrainerID == nil || *k.TrainerID != e.trainerA[0] || k.TrainerName == nil || *k.TrainerName != "Coach 1" || k.OwnTraineesOnly || k.TimeZone != "UTC" {
			t.Fatalf("whoami %+v", k)
		}
		var feed api.EventPage
		e.do("GET", api.PathEvents+"?order=desc&limit=1", f.admin, nil).expect(t, 200).JSON(t, &feed)
		a := feed.Events[0].Actor
		if a == nil || a.Type != api.ActorKey || a.Name != "Coach 1" || a.TrainerID == nil || *a.TrainerID != e.trainerA[0] || a.Label() != "Coach 1" {
			t.Fatalf("actor %+v", a)
		}
		// Another trainer may still be given.
		b := newTraineeBody("Gus Park")
		b["trainerId"] = e.trainerA[1]
		if got := e.create(f.bound, b); *got.TrainerID != e.trainerA[1] {
			t.Fatalf("trainer %v", got.TrainerID)
		}
	})
}

// Trainers over the API: created (an e-mail any person has is a 1008),
// renamed; deactivated only with reassignTo while they have trainees (409
// 1033, nothing moved), which moves them (one trainee.updated each) and
// disables the trainer's keys; a deactivated trainer takes no trainee
// (1035) and is never the default; reassign moves every trainee, deleted
// ones included; a company without an active trainer refuses a create
// without trainerId (1034).
func TestTrainerAdministration(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		f := newOwnFixture(t, e)
		var env api.TrainerEnvelope
		e.do("POST", api.PathTrainers, f.admin, map[string]any{"name": " Nia Coach ", "email": "NIA@A.example"}).expect(t, 200).JSON(t, &env)
		nia := *env.Trainer
		if nia.Name != "Nia Coach" || nia.Email != "nia@a.example" || !nia.Active || nia.Trainees == nil || *nia.Trainees != 0 {
			t.Fatalf("created %+v", nia)
		}
		e.do("POST", api.PathTrainers, f.admin, map[string]any{"name": "Dup", "email": f.ada.Email}).expectError(t, api.CodeEmailTaken, "email")
		e.do("PATCH", trainerPath(nia.ID, ""), f.admin, map[string]any{"email": "coach1@a.example"}).expectError(t, api.CodeEmailTaken, "email")
		e.do("PATCH", trainerPath(nia.ID, ""), f.admin, map[string]any{"name": "Nia Trainer"}).expect(t, 200).JSON(t, &env)
		if env.Trainer.Name != "Nia Trainer" {
			t.Fatalf("renamed %+v", env.Trainer)
		}
		// A0 has ada and cleo (deleted): refused without reassignTo.
		before := snapshot(t, e)
		e.do("PATCH", trainerPath(e.trainerA[0], ""), f.admin, map[string]any{"active": false}).expectCode(t, http.StatusConflict, api.CodeTrainerHasTrainees)
		if snapshot(t, e) != before {
			t.Fatal("a refused deactivation changed something")
		}
		var feed api.EventPage
		e.do("GET", api.PathEvents+"?order=desc&limit=1", f.admin, nil).expect(t, 200).JSON(t, &feed)
		last := feed.Events[0].ID
		var boundKey api.CurrentKeyEnvelope
		e.do("GET", api.PathCurrentKey, f.bound, nil).expect(t, 200).JSON(t, &boundKey)
		env = api.TrainerEnvelope{}
		e.do("PATCH", trainerPath(e.trainerA[0], ""), f.admin, map[string]any{"active": false, "reassignTo": nia.ID}).expect(t, 200).JSON(t, &env)
		if env.Trainer.Active || *env.Trainer.Trainees != 0 || env.Moved == nil || *env.Moved != 2 ||
			len(env.DisabledKeys) != 1 || env.DisabledKeys[0] != boundKey.Key.ID {
			t.Fatalf("deactivated %+v, moved %v, disabled keys %v", env.Trainer, env.Moved, env.DisabledKeys)
		}
		for _, id := range []int64{f.ada.ID, f.cleo.ID} {
			got := e.do("GET", "/public-api/trainees/"+strconv.FormatInt(id, 10), f.admin, nil).expect(t, 200).trainee(t)
			if *got.TrainerID != nia.ID {
				t.Fatalf("trainee %d still with %d", id, *got.TrainerID)
			}
		}
		e.do("GET", api.PathEvents+"?after="+last, f.admin, nil).expect(t, 200).JSON(t, &feed)
		var types []string
		for _, ev := range feed.Events {
			types = append(types, ev.Type)
		}
		if strings.Join(types, ",") != "trainee.updated,trainee.updated,trainer.updated" {
			t.Fatalf("events of the deactivation %v", types)
		}
		e.do("GET", api.PathSearch, f.bound, nil).expect(t, 401) // the trainer's key is disabled with it
		b := newTraineeBody("Hal Park")
		b["trainerId"] = e.trainerA[0]
		e.do("POST", api.PathTrainees, f.admin, b).expectError(t, api.CodeTrainerInactive, "trainerId")
		e.do("POST", trainerPath(nia.ID, "/reassign"), f.admin, map[string]any{"to": e.trainerA[0]}).expectError(t, api.CodeTrainerInactive, "to")
		// The default trainer is the first active one: A1.
		if got := e.create(f.admin, newTraineeBody("Ivy Park")); *got.TrainerID != e.trainerA[1] {
			t.Fatalf("default trainer %d", *got.TrainerID)
		}
		e.do("GET", api.PathEvents+"?order=desc&limit=1", f.admin, nil).expect(t, 200).JSON(t, &feed)
		last = feed.Events[0].ID
		var moved api.ReassignResult
		e.do("POST", trainerPath(nia.ID, "/reassign"), f.admin, map[string]any{"to": e.trainerA[1]}).expect(t, 200).JSON(t, &moved)
		if moved.Moved != 2 || moved.From.ID != nia.ID || *moved.From.Trainees != 0 || moved.To.ID != e.trainerA[1] {
			t.Fatalf("reassigned %+v", moved)
		}
		// One trainee.updated per trainee moved, naming the new trainer.
		e.do("GET", api.PathEvents+"?after="+last, f.admin, nil).expect(t, 200).JSON(t, &feed)
		movedIDs := map[int64]bool{}
		for _, ev := range feed.Events {
			var body struct {
				Data struct {
					Trainee struct {
						ID        int64  `json:"id"`
						TrainerID *int64 `json:"trainerId"`
					} `json:"trainee"`
					ChangedFields []string `json:"changedFields"`
				} `json:"data"`
			}
			must(t, json.Unmarshal(ev.Payload, &body))
			tr := body.Data.Trainee
			if ev.Type != "trainee.updated" || tr.TrainerID == nil || *tr.TrainerID != e.trainerA[1] || movedIDs[tr.ID] ||
				!slices.Contains(body.Data.ChangedFields, "trainerId") {
				t.Fatalf("event of the reassignment %s %s", ev.Type, ev.Payload)
			}
			movedIDs[tr.ID] = true
		}
		if len(movedIDs) != 2 || !movedIDs[f.ada.ID] || !movedIDs[f.cleo.ID] {
			t.Fatalf("the reassignment's events name %v, want ada %d and cleo %d", movedIDs, f.ada.ID, f.cleo.ID)
		}
		e.do("POST", trainerPath(nia.ID, "/reassign"), f.admin, map[string]any{"to": e.trainerB}).expectError(t, api.CodeUnknownTrainer, "to")
		e.do("GET", trainerPath(e.trainerB, ""), f.admin, nil).expectCode(t, http.StatusNotFound, api.CodeNotFound)
		e.do("PATCH", trainerPath(nia.ID, ""), f.admin, map[string]any{"active": false}).expect(t, 200) // no trainees left
		e.do("PATCH", trainerPath(e.trainerA[1], ""), f.admin, map[string]any{"active": false, "reassignTo": nia.ID}).
			expectError(t, api.CodeTrainerInactive, "reassignTo")
		// Company B without an active trainer: a create without trainerId
		// is refused, with one it is a deactivated trainer's 1035.
		adminB := e.adminKey(e.companyB)
		e.do("PATCH", trainerPath(e.trainerB, ""), adminB, map[string]any{"active": false}).expect(t, 200)
		e.do("POST", api.PathTrainees, adminB, newTraineeBody("Kim Park")).expectError(t, api.CodeNoActiveTrainer, "trainerId")
	})
}

// The company's settings: read by any key, changed by an admin key; a new
// time zone decides who is expired from the next request on.
func TestCompanyTimeZone(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		admin := e.adminKey(e.companyA)
		// fixedNow is 21-11-2026 23:30 UTC: already the 22nd in Auckland.
		b := newTraineeBody("Jo Park")
		b["expirationDate"] = "22-11-2026"
		jo := e.create(e.keyA, b)
		expired := func() []int64 { return searchIDs(t, e, e.keyA, "status=expired") }
		if len(expired()) != 0 {
			t.Fatal("expired before the change of zone")
		}
		var c api.CompanyEnvelope
		e.do("GET", api.PathCompany, e.readKey(e.companyA), nil).expect(t, 200).JSON(t, &c)
		if c.Company.ID != e.companyA || c.Company.TimeZone != "UTC" || c.Company.Name != "Company A" {
			t.Fatalf("company %+v", c.Company)
		}
		e.do("PATCH", api.PathCompany, e.keyA, map[string]any{"timeZone": "Pacific/Auckland"}).expectCode(t, http.StatusForbidden, api.CodeAdminScope)
		e.do("PATCH", api.PathCompany, admin, map[string]any{"timeZone": "Mars/Olympus"}).expectError(t, api.CodeInvalidEnum, "timeZone")
		e.do("PATCH", api.PathCompany, admin, map[string]any{"name": " "}).expectError(t, api.CodeTextLength, "name")
		e.do("PATCH", api.PathCompany, admin, map[string]any{"timeZone": "Pacific/Auckland", "name": "Company A (NZ)"}).expect(t, 200).JSON(t, &c)
		if c.Company.TimeZone != "Pacific/Auckland" || c.Company.Name != "Company A (NZ)" {
			t.Fatalf("changed %+v", c.Company)
		}
		if got := expired(); len(got) != 1 || got[0] != jo.ID {
			t.Fatalf("expired after the change: %v", got)
		}
		var st api.TraineeStats
		e.do("GET", api.PathStats, e.keyA, nil).expect(t, 200).JSON(t, &st)
		if st.Expired != 1 {
			t.Fatalf("stats %+v", st)
		}
	})
}
