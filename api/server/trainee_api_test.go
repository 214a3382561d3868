package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/server"
	"github.com/traineed/traineed/store/storetest"
)

func TestCreateAndGet(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		body := map[string]any{"name": "  Ada Park ", "email": " Ada@Example.COM ", "password": "correct horse",
			"companyId": e.companyB, "id": 5, "createdByType": "SELF", "unknownField": true}
		r := e.do("POST", "/public-api/trainees", e.keyA, body).expect(t, 200)
		var raw struct {
			Timestamp int64                      `json:"timestamp"`
			Trainee   map[string]json.RawMessage `json:"trainee"`
		}
		r.JSON(t, &raw)
		want := []string{"id", "userId", "name", "email", "username", "phoneNumber", "dateOfBirth", "expirationDate",
			"enabled", "companyId", "trainerId", "createdByType", "forcePasswordChange", "weightUnit", "authorities", "lastTrained"}
		got := make([]string, 0, len(raw.Trainee))
		for k := range raw.Trainee {
			got = append(got, k)
		}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Fatalf("trainee fields %v, want %v", got, want)
		}
		for _, k := range []string{"phoneNumber", "dateOfBirth", "expirationDate", "lastTrained"} {
			if string(raw.Trainee[k]) != "null" {
				t.Errorf("%s = %s, want null", k, raw.Trainee[k])
			}
		}
		tr := r.trainee(t)
		if tr.Name != "Ada Park" || tr.Email != "ada@example.com" || tr.Username != tr.Email {
			t.Errorf("not normalised: %+v", tr)
		}
		if !tr.Enabled || !tr.ForcePasswordChange || tr.CreatedByType != "ADMIN" || tr.WeightUnit != "KG" {
			t.Errorf("defaults wrong: %+v", tr)
		}
		if tr.CompanyID != e.companyA {
			t.Errorf("companyId %d, want the key's company %d", tr.CompanyID, e.companyA)
		}
		if tr.TrainerID == nil || *tr.TrainerID != e.trainerA[0] {
			t.Errorf("trainerId %v, want the first trainer %d", tr.TrainerID, e.trainerA[0])
		}
		if !slices.Equal(tr.Authorities, []string{"TRAINEE", "USER"}) {
			t.Errorf("authorities %v", tr.Authorities)
		}
		if tr.ID == tr.UserID {
			t.Errorf("id and userId are both %d; trainers' users should make them differ", tr.ID)
		}
		got2 := e.do("GET", fmt.Sprintf("/public-api/trainees/%d", tr.ID), e.keyA, nil).expect(t, 200).trainee(t)
		if !reflect.DeepEqual(got2, tr) {
			t.Errorf("GET %+v differs from create %+v", got2, tr)
		}
		// The password is stored hashed (argon2id), never in clear.
		var hash string
		must(t, storetest.DB(t, e.store).NewSelect().Table("users").Column("password_hash").Where("id = ?", tr.UserID).Scan(context.Background(), &hash))
		if !strings.HasPrefix(hash, "$argon2id$") || strings.Contains(hash, "correct horse") || !server.VerifyPassword(hash, "correct horse") {
			t.Errorf("stored password %q", hash)
		}
		if strings.Contains(string(r.Body), "correct horse") || strings.Contains(string(r.Body), "password") {
			t.Errorf("response mentions the password: %s", r.Body)
		}
	})
}

func TestCreateAllFields(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		body := newTraineeBody("Full Fields")
		body["phoneNumber"] = "+44 (7700) 900-123"
		body["dateOfBirth"] = "02-03-1990"
		body["expirationDate"] = "31-12-2027"
		body["trainerId"] = e.trainerA[1]
		body["weightUnit"] = "LB"
		tr := e.create(e.keyA, body)
		if tr.PhoneNumber == nil || *tr.PhoneNumber != "+447700900123" {
			t.Errorf("phone %v", tr.PhoneNumber)
		}
		if tr.DateOfBirth == nil || tr.DateOfBirth.String() != "02-03-1990" || tr.ExpirationDate == nil || tr.ExpirationDate.String() != "31-12-2027" {
			t.Errorf("dates %v %v", tr.DateOfBirth, tr.ExpirationDate)
		}
		if tr.TrainerID == nil || *tr.TrainerID != e.trainerA[1] || tr.WeightUnit != "LB" {
			t.Errorf("trainer/unit %v %s", tr.TrainerID, tr.WeightUnit)
		}
		// expirationDate null on create is "no expiration".
		body = newTraineeBody("No Expiry")
		body["expirationDate"] = nil
		if tr := e.create(e.keyA, body); tr.ExpirationDate != nil {
			t.Errorf("expirationDate %v, want null", tr.ExpirationDate)
		}
	})
}

func TestErrorCodes(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		taken := newTraineeBody("Taken")
		taken["phoneNumber"] = "+447700900999"
		e.create(e.keyA, taken)
		with := func(k string, v any) map[string]any {
			b := newTraineeBody("Row")
			b[k] = v
			return b
		}
		without := func(k string) map[string]any {
			b := newTraineeBody("Row")
			delete(b, k)
			return b
		}
		cases := []struct {
			name  string
			body  any
			code  int
			field string
		}{
			{"not JSON", `{"name":`, 1000, ""},
			{"array", `[{"name":"x"}]`, 1000, ""},
			{"bare string", `"hello"`, 1000, ""},
			{"two objects", `{"name":"a"} {"name":"b"}`, 1000, ""},
			{"empty body", ``, 1000, ""},
			{"wrong type", with("name", 42), 1000, "name"},
			{"trainerId not integer", with("trainerId", 1.5), 1000, "trainerId"},
			{"trainerId quoted", with("trainerId", fmt.Sprint(e.trainerA[0])), 1000, "trainerId"},
			{"missing name", without("name"), 1001, "name"},
			{"null email", with("email", nil), 1001, "email"},
			{"missing password", without("password"), 1001, "password"},
			{"bad e-mail", with("email", "not-an-email"), 1002, "email"},
			{"display-name e-mail", with("email", "Ada <ada@example.com>"), 1002, "email"},
			{"e-mail too long", with("email", strings.Repeat("a", 60)+"@"+strings.Repeat("b", 190)+".com"), 1002, "email"},
			{"short password", with("password", "1234567"), 1003, "password"},
			{"long password", with("password", strings.Repeat("p", 129)), 1003, "password"},
			{"weight unit", with("weightUnit", "STONE"), 1004, "weightUnit"},
			{"not a date", with("dateOfBirth", "31-02-2000"), 1005, "dateOfBirth"},
			{"ISO date", with("expirationDate", "2027-01-01"), 1005, "expirationDate"},
			{"future birth", with("dateOfBirth", "01-01-2030"), 1005, "dateOfBirth"},
			{"birth before 1900", with("dateOfBirth", "31-12-1899"), 1005, "dateOfBirth"},
			{"phone without plus", with("phoneNumber", "07700900123"), 1006, "phoneNumber"},
			{"phone too short", with("phoneNumber", "+1234567"), 1006, "phoneNumber"},
			{"blank name", with("name", "   "), 1007, "name"},
			{"long name", with("name", strings.Repeat("n", 101)), 1007, "name"},
			{"e-mail taken", with("email", "  "+strings.ToUpper(taken["email"].(string))), 1008, "email"},
			{"phone taken", with("phoneNumber", "+44 7700-900.999"), 1009, "phoneNumber"},
			{"other company's trainer", with("trainerId", e.trainerB), 1010, "trainerId"},
			{"unknown trainer", with("trainerId", 987654), 1010, "trainerId"},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				e.do("POST", "/public-api/trainees", e.keyA, c.body).expectError(t, c.code, c.field)
			})
		}
		t.Run("1012 search parameters", func(t *testing.T) {
			for _, q := range []string{"page=-1", "page=x", "page=2147483648", "size=0", "size=101", "sort=age", "sort=name,up", "status=gone"} {
				e.do("GET", "/public-api/trainees/search?"+q, e.keyA, nil).expectError(t, 1012, strings.SplitN(q, "=", 2)[0])
			}
		})
		t.Run("1012 non-numeric id", func(t *testing.T) {
			for _, m := range []string{"GET", "PUT", "DELETE"} {
				e.do(m, "/public-api/trainees/abc", e.keyA, `{}`).expectError(t, 1012, "id")
			}
			e.do("GET", "/public-api/trainees/99999999999999999999", e.keyA, nil).expectError(t, 1012, "id")
		})
		t.Run("1013 reserved feature", func(t *testing.T) {
			e.do("POST", "/public-api/automations", e.keyA, `{"name":"n","trigger":{"type":"TRAINEE_CREATED"},"actionType":"EMAIL"}`).expectError(t, 1013, "actionType")
		})
		t.Run("every problem listed", func(t *testing.T) {
			b := e.do("POST", "/public-api/trainees", e.keyA, map[string]any{"email": "bad", "password": "short"}).expectError(t, 1001, "name")
			var codes []int
			for _, x := range b.Errors {
				codes = append(codes, x.ErrorCode)
			}
			if !slices.Equal(codes, []int{1001, 1002, 1003}) {
				t.Errorf("codes %v, want [1001 1002 1003]", codes)
			}
			// A foreign trainer is listed with the body's other problems.
			b = e.do("POST", "/public-api/trainees", e.keyA, map[string]any{"name": "X", "email": "bad", "password": "12345678",
				"trainerId": e.trainerB}).expectError(t, 1002, "email")
			if len(b.Errors) != 2 || b.Errors[1].ErrorCode != 1010 || b.Errors[1].Field != "trainerId" {
				t.Errorf("errors %+v, want 1002 then 1010", b.Errors)
			}
			b = e.do("POST", "/public-api/trainees", e.keyA, map[string]any{"name": "X", "email": "bad", "password": "12345678",
				"trainerId": e.trainerA[0]}).expectError(t, 1002, "email")
			if len(b.Errors) != 1 {
				t.Errorf("errors %+v, want only the 1002: the trainer is the company's", b.Errors)
			}
		})
		// Nothing of any rejected create was stored: only "Taken" exists.
		var page api.TraineePage
		e.do("GET", "/public-api/trainees/search?status=all", e.keyA, nil).expect(t, 200).JSON(t, &page)
		if page.Page.TotalElements != 1 {
			t.Errorf("%d trainees stored, want 1", page.Page.TotalElements)
		}
	})
}

func TestUnauthorized(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		tr := e.create(e.keyA, newTraineeBody("Key Test"))
		path := fmt.Sprintf("/public-api/trainees/%d", tr.ID)
		disabled := e.newKey(e.companyA)
		deleted := e.newKey(e.companyA)
		ctx := context.Background()
		keys, err := e.store.Keys(ctx, e.companyA)
		must(t, err)
		for _, k := range keys {
			switch k.Prefix {
			case api.KeyDisplayPrefix(disabled):
				must(t, e.store.SetKeyDisabled(ctx, k.ID, true))
			case api.KeyDisplayPrefix(deleted):
				must(t, e.store.DeleteKey(ctx, k.ID))
			}
		}
		cases := map[string]string{
			"missing":         "",
			"wrong prefix":    "sk_" + e.keyA[3:],
			"too short":       e.keyA[:len(e.keyA)-1],
			"bad character":   e.keyA[:len(e.keyA)-1] + "!",
			"unknown":         api.GenerateKey(),
			"disabled":        disabled,
			"deleted":         deleted,
			"lower-case head": "PK_" + e.keyA[3:],
		}
		for name, key := range cases {
			t.Run(name, func(t *testing.T) {
				for _, route := range [][2]string{{"GET", path}, {"POST", "/public-api/trainees"}, {"GET", "/public-api/nowhere"}, {"PATCH", path}} {
					r := e.do(route[0], route[1], key, nil)
					if r.Status != 401 || len(r.Body) != 0 {
						t.Errorf("%s %s: %d %q, want an empty 401", route[0], route[1], r.Status, r.Body)
					}
				}
			})
		}
		// A disabled key enabled again works on the next request.
		for _, k := range keys {
			if k.Prefix == api.KeyDisplayPrefix(disabled) {
				must(t, e.store.SetKeyDisabled(ctx, k.ID, false))
			}
		}
		e.do("GET", path, disabled, nil).expect(t, 200)
	})
}

func TestUpdateRules(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		body := newTraineeBody("Put Rules")
		body["phoneNumber"] = "+447700900111"
		body["dateOfBirth"] = "02-03-1990"
		body["expirationDate"] = "01-01-2030"
		tr := e.create(e.keyA, body)
		path := fmt.Sprintf("/public-api/trainees/%d", tr.ID)
		put := func(b any) *resp { return e.do("PUT", path, e.keyA, b) }

		// {} changes nothing.
		same := put(`{}`).expect(t, 200).trainee(t)
		if !reflect.DeepEqual(same, tr) {
			t.Fatalf("{} changed %+v into %+v", tr, same)
		}
		// Absent fields are left alone; given ones change.
		got := put(map[string]any{"name": "Renamed", "trainerId": e.trainerA[1], "weightUnit": "LB"}).expect(t, 200).trainee(t)
		if got.Name != "Renamed" || *got.TrainerID != e.trainerA[1] || got.WeightUnit != "LB" || *got.PhoneNumber != "+447700900111" || got.Email != tr.Email {
			t.Fatalf("partial update gave %+v", got)
		}
		// null clears phone and dates.
		got = put(`{"phoneNumber":null,"dateOfBirth":null,"expirationDate":null}`).expect(t, 200).trainee(t)
		if got.PhoneNumber != nil || got.DateOfBirth != nil || got.ExpirationDate != nil {
			t.Fatalf("null did not clear: %+v", got)
		}
		// null for any other field is a 1001 and changes nothing.
		for _, f := range []string{"name", "email", "password", "trainerId", "weightUnit", "enabled", "forcePasswordChange"} {
			put(fmt.Sprintf(`{%q:null,"dateOfBirth":"01-01-1980"}`, f)).expectError(t, 1001, f)
		}
		if now := e.do("GET", path, e.keyA, nil).trainee(t); now.DateOfBirth != nil {
			t.Fatalf("a rejected PUT set the date of birth to %v", now.DateOfBirth)
		}
		// A new e-mail changes the username with it.
		got = put(`{"email":"New.Address@Example.com"}`).expect(t, 200).trainee(t)
		if got.Email != "new.address@example.com" || got.Username != got.Email {
			t.Fatalf("email %q username %q", got.Email, got.Username)
		}
		// A new password sets forcePasswordChange unless the body sets it.
		if got = put(`{"forcePasswordChange":false}`).expect(t, 200).trainee(t); got.ForcePasswordChange {
			t.Fatal("forcePasswordChange not cleared")
		}
		if got = put(`{"password":"another secret"}`).expect(t, 200).trainee(t); !got.ForcePasswordChange {
			t.Fatal("a new password did not set forcePasswordChange")
		}
		if got = put(`{"password":"third secret","forcePasswordChange":false}`).expect(t, 200).trainee(t); got.ForcePasswordChange {
			t.Fatal("forcePasswordChange in the same body was overridden")
		}
		var hash string
		must(t, storetest.DB(t, e.store).NewSelect().Table("users").Column("password_hash").Where("id = ?", tr.UserID).Scan(context.Background(), &hash))
		if !server.VerifyPassword(hash, "third secret") {
			t.Fatal("new password not stored")
		}
		// Read-only fields are ignored.
		got = put(map[string]any{"id": 1, "userId": 2, "companyId": e.companyB, "username": "x@y.z", "createdByType": "SELF",
			"authorities": []string{"ADMIN"}, "lastTrained": "01-01-2026"}).expect(t, 200).trainee(t)
		if got.ID != tr.ID || got.CompanyID != e.companyA || got.Username != got.Email || got.CreatedByType != "ADMIN" || got.LastTrained != nil {
			t.Fatalf("read-only field changed: %+v", got)
		}
		// Validation as on create, and duplicates.
		other := e.create(e.keyA, map[string]any{"name": "Other", "email": "other@example.com", "password": "12345678", "phoneNumber": "+15550001111"})
		put(`{"email":"OTHER@example.com"}`).expectError(t, 1008, "email")
		put(`{"phoneNumber":"+1 555 000 1111"}`).expectError(t, 1009, "phoneNumber")
		put(fmt.Sprintf(`{"trainerId":%d}`, e.trainerB)).expectError(t, 1010, "trainerId")
		put(`{"weightUnit":"kg"}`).expectError(t, 1004, "weightUnit")
		if b := put(fmt.Sprintf(`{"weightUnit":"kg","trainerId":%d}`, e.trainerB)).expectError(t, 1004, "weightUnit"); len(b.Errors) != 2 || b.Errors[1].ErrorCode != 1010 {
			t.Errorf("errors %+v, want 1004 then 1010", b.Errors)
		}
		put(`{"enabled":"yes"}`).expectError(t, 1000, "enabled")
		put(`{"expirationDate":"2027-01-01"}`).expectError(t, 1005, "expirationDate")
		_ = other
	})
}

func TestDeleteAndRestore(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		tr := e.create(e.keyA, newTraineeBody("Soft Delete"))
		path := fmt.Sprintf("/public-api/trainees/%d", tr.ID)
		del := e.do("DELETE", path, e.keyA, nil).expect(t, 200).trainee(t)
		if del.Enabled {
			t.Fatal("DELETE left enabled true")
		}
		again := e.do("DELETE", path, e.keyA, nil).expect(t, 200).trainee(t)
		if !reflect.DeepEqual(again, del) {
			t.Fatalf("second DELETE %+v differs from first %+v", again, del)
		}
		if got := e.do("GET", path, e.keyA, nil).expect(t, 200).trainee(t); got.Enabled {
			t.Fatal("GET of a deleted trainee says enabled")
		}
		count := func(status string) int64 {
			var p api.TraineePage
			e.do("GET", "/public-api/trainees/search?status="+status, e.keyA, nil).expect(t, 200).JSON(t, &p)
			return p.Page.TotalElements
		}
		if count("live") != 0 || count("deleted") != 1 || count("all") != 1 {
			t.Fatalf("after delete live=%d deleted=%d all=%d", count("live"), count("deleted"), count("all"))
		}
		// The e-mail stays taken while soft-deleted.
		e.do("POST", "/public-api/trainees", e.keyA, map[string]any{"name": "Again", "email": tr.Email, "password": "12345678"}).expectError(t, 1008, "email")
		// PUT enabled:true restores; enabled:false soft-deletes.
		if got := e.do("PUT", path, e.keyA, `{"enabled":true}`).expect(t, 200).trainee(t); !got.Enabled {
			t.Fatal("restore failed")
		}
		if count("live") != 1 || count("deleted") != 0 {
			t.Fatal("restore not visible in search")
		}
		if got := e.do("PUT", path, e.keyA, `{"enabled":false}`).expect(t, 200).trainee(t); got.Enabled {
			t.Fatal("PUT enabled:false did not soft-delete")
		}
	})
}

func TestForeignAndUnknownIDs(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		a := e.create(e.keyA, newTraineeBody("Company A Trainee"))
		path := fmt.Sprintf("/public-api/trainees/%d", a.ID)
		for _, key := range []string{e.keyB} {
			e.do("GET", path, key, nil).expectNotFound(t)
			e.do("PUT", path, key, `{"name":"Hijacked"}`).expectNotFound(t)
			e.do("PUT", path, key, `{}`).expectNotFound(t)
			e.do("DELETE", path, key, nil).expectNotFound(t)
		}
		for _, m := range []string{"GET", "PUT", "DELETE"} {
			e.do(m, "/public-api/trainees/987654321", e.keyA, `{}`).expectNotFound(t)
		}
		// A's trainee is untouched and B's search does not see it.
		if got := e.do("GET", path, e.keyA, nil).expect(t, 200).trainee(t); !reflect.DeepEqual(got, a) {
			t.Fatalf("company B changed A's trainee: %+v", got)
		}
		var p api.TraineePage
		e.do("GET", "/public-api/trainees/search?status=all&q=company", e.keyB, nil).expect(t, 200).JSON(t, &p)
		if p.Page.TotalElements != 0 || len(p.Content) != 0 {
			t.Fatalf("company B found %d of A's trainees", p.Page.TotalElements)
		}
		// B cannot assign A's trainer either.
		b := newTraineeBody("B Trainee")
		b["trainerId"] = e.trainerA[0]
		e.do("POST", "/public-api/trainees", e.keyB, b).expectError(t, 1010, "trainerId")
	})
}

func TestConcurrentCreatesOneEmail(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		const n = 20
		var wg sync.WaitGroup
		statuses := make([]*resp, n)
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				statuses[i] = doOn(t, e.srv.URL, "POST", "/public-api/trainees", e.keyA,
					map[string]any{"name": fmt.Sprintf("Racer %d", i), "email": "race@example.com", "password": "12345678"}, nil)
			}()
		}
		wg.Wait()
		ok := 0
		for _, r := range statuses {
			switch r.Status {
			case 200:
				ok++
			case 400:
				r.expectError(t, 1008, "email")
			default:
				t.Errorf("status %d: %s", r.Status, r.Body)
			}
		}
		if ok != 1 {
			t.Fatalf("%d creates succeeded, want exactly 1", ok)
		}
		var p api.TraineePage
		e.do("GET", "/public-api/trainees/search?status=all&q=race@example.com", e.keyA, nil).expect(t, 200).JSON(t, &p)
		if p.Page.TotalElements != 1 {
			t.Fatalf("%d rows stored, want 1", p.Page.TotalElements)
		}
	})
}

func TestRoutingAndHeaders(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		// Every refusal but the seed's 401 and 500s has the JSON error.
		code := func(r *resp) int {
			t.Helper()
			var b api.ErrorBody
			r.JSON(t, &b)
			if r.Header.Get("Content-Type") != "application/json" || len(b.Errors) != 1 || b.Errors[0].ErrorCode != b.ErrorCode {
				t.Errorf("%d: not the JSON error: %q", r.Status, r.Body)
			}
			return b.ErrorCode
		}
		r := e.do("GET", "/public-api/nowhere", e.keyA, nil).expect(t, 404)
		if code(r) != api.CodeNoRoute || r.Header.Get("X-Request-Id") == "" {
			t.Errorf("404 body %q, request id %q", r.Body, r.Header.Get("X-Request-Id"))
		}
		r = e.do("PATCH", "/public-api/trainees/1", e.keyA, `{}`).expect(t, 405)
		if code(r) != api.CodeMethodNotAllowed || !strings.Contains(r.Header.Get("Allow"), "PUT") || !strings.Contains(r.Header.Get("Allow"), "DELETE") {
			t.Errorf("405 body %q Allow %q", r.Body, r.Header.Get("Allow"))
		}
		if r = e.do("GET", "/elsewhere", "", nil).expect(t, 404); code(r) != api.CodeNoRoute {
			t.Errorf("404 outside the API: %q", r.Body)
		}
		big := `{"name":"` + strings.Repeat("x", api.MaxBodyBytes) + `"}`
		if r = e.do("POST", "/public-api/trainees", e.keyA, big).expect(t, 413); code(r) != api.CodeBodyTooLarge {
			t.Errorf("413 body %q", r.Body)
		}
		// A JSON body sent as another media type is a 415, and nothing is
		// created; JSON with parameters, +json and no Content-Type at all
		// are read.
		for _, ct := range []string{"text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "nonsense/"} {
			r = doOn(t, e.srv.URL, "POST", "/public-api/trainees", e.keyA, newTraineeBody("Plain Text"), http.Header{"Content-Type": {ct}}).expect(t, 415)
			if code(r) != api.CodeUnsupportedMediaType {
				t.Errorf("%s: %q", ct, r.Body)
			}
		}
		if n := e.count(e.keyA); n != 0 {
			t.Fatalf("a 415 created %d trainees", n)
		}
		for _, ct := range []string{"application/json; charset=utf-8", "application/merge-patch+json"} {
			doOn(t, e.srv.URL, "POST", "/public-api/trainees", e.keyA, newTraineeBody("Json Type"), http.Header{"Content-Type": {ct}}).expect(t, 200)
		}
		// X-Request-Id: the caller's sane one is kept, anything else replaced.
		r = doOn(t, e.srv.URL, "GET", "/public-api/trainees/search", e.keyA, nil, http.Header{"X-Request-Id": {"abc-123.x:y_z"}})
		if got := r.Header.Get("X-Request-Id"); got != "abc-123.x:y_z" {
			t.Errorf("sane request id replaced by %q", got)
		}
		r = doOn(t, e.srv.URL, "GET", "/public-api/trainees/search", e.keyA, nil, http.Header{"X-Request-Id": {"<script>"}})
		if got := r.Header.Get("X-Request-Id"); got == "" || got == "<script>" {
			t.Errorf("insane request id kept: %q", got)
		}
		if r = e.do("GET", "/public-api/trainees/1", "", nil); r.Header.Get("X-Request-Id") == "" {
			t.Error("401 without a request id")
		}
		e.do("GET", "/healthz", "", nil).expect(t, 200)
		e.do("GET", "/readyz", "", nil).expect(t, 200)
		e.do("POST", "/healthz", "", nil).expect(t, 405)
		doc := e.do("GET", "/openapi.yaml", "", nil).expect(t, 200)
		if string(doc.Body) != string(api.OpenAPIDocument) || doc.Header.Get("Content-Type") != "application/yaml" {
			t.Errorf("GET /openapi.yaml: %q, %d bytes", doc.Header.Get("Content-Type"), len(doc.Body))
		}
	})
}
