package server_test

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/traineed/traineed/store/storetest"
)

// The fuzz targets hold the invariant "a request is answered with 2xx or
// 4xx, or with the documented unknown-id 500, and never panics" for what a
// caller controls: create and update bodies, the trainee id of the path,
// and every query parameter of search and of the tracked-data routes. They
// run the real handler over SQLite, and every answer is also checked
// against api/openapi.yaml. Their seed corpus (f.Add below, and
// testdata/fuzz/<target> when a run found something) runs in every
// `go test`; docs/development.md says how to fuzz longer.

// fuzzServer is an env over SQLite for one fuzz target, with a trainee of
// company A whose id it returns.
func fuzzServer(f *testing.F) (*env, string) {
	e := newEnv(f, storetest.SQLite(f))
	tr := e.create(e.keyA, newTraineeBody("Fuzz Target"))
	return e, fmt.Sprint(tr.ID)
}

// serveFuzz sends one request to the handler and checks the invariant.
func serveFuzz(t *testing.T, e *env, method, target string, body []byte) {
	t.Helper()
	var rd *bytes.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	} else {
		rd = bytes.NewReader(nil)
	}
	req, err := http.NewRequest(method, "http://fuzz.test"+target, rd)
	if err != nil {
		t.Skip("not a request a client can send:", err)
	}
	req.Header.Set("X-API-Key", e.keyA)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	rec := httptest.NewRecorder()
	e.handler.ServeHTTP(rec, req) // a panic fails the input
	r := &resp{Status: rec.Code, Header: rec.Header(), Body: rec.Body.Bytes()}
	switch {
	case r.Status >= 200 && r.Status < 300, r.Status >= 400 && r.Status < 500:
	case r.Status == 500 && r.Header.Get("X-Error-Reason") == "trainee-not-found" && len(r.Body) == 0:
	default:
		t.Fatalf("%s %s %q: status %d %v %q", method, target, body, r.Status, r.Header, r.Body)
	}
	validateResponse(t, req, body, r)
}

func FuzzCreateBody(f *testing.F) {
	for _, s := range []string{
		`{"name":"Ada Park","email":"ada.fuzz@example.com","password":"correct horse"}`,
		`{"name":"a\u0000b","email":"nul@example.com","password":"12345678"}`,
		`{"name":"Ada","email":"a\u0000@example.com","password":"12345678","phoneNumber":"+4477\u0000900123"}`,
		`{"name":"Ada","email":"ada2@example.com","password":"pass\u0000word","weightUnit":"K\u0000G"}`,
		`{"name":"Ada","email":"ada3@example.com","password":"12345678","dateOfBirth":"01-01-19\u000000","expirationDate":"31-12-9999"}`,
		`{"name":"Ada","email":"ada4@example.com","password":"12345678","expirationDate":"01-01-0001","trainerId":-1}`,
		`{"name":"` + "\xff\xfe" + `","email":"bad@example.com","password":"12345678"}`,
		`{"name":1e999,"email":[],"password":{}}`,
		`{"trainerId":9223372036854775808}`,
		`[]`, `null`, ``, `{"name":"a"}{}`,
	} {
		f.Add([]byte(s))
	}
	e, _ := fuzzServer(f)
	f.Fuzz(func(t *testing.T, body []byte) {
		serveFuzz(t, e, "POST", "/public-api/trainees", body)
	})
}

func FuzzUpdateBody(f *testing.F) {
	for _, s := range []string{
		`{}`, `{"name":"New Name"}`, `{"name":"a\u0000b"}`, `{"email":"x\u0000@example.com"}`,
		`{"phoneNumber":null,"dateOfBirth":null,"expirationDate":null}`, `{"expirationDate":"31-12-9999"}`,
		`{"password":"a\u0000bcdefgh"}`, `{"enabled":false}`, `{"enabled":true}`, `{"weightUnit":"LB\u0000"}`,
		`{"trainerId":0}`, `{"forcePasswordChange":"yes"}`, `{"name":null}`, `"x"`,
	} {
		f.Add([]byte(s))
	}
	e, id := fuzzServer(f)
	f.Fuzz(func(t *testing.T, body []byte) {
		serveFuzz(t, e, "PUT", "/public-api/trainees/"+id, body)
	})
}

func FuzzTraineeID(f *testing.F) {
	for _, s := range []string{"1", "04", "+4", "-1", "0", "9223372036854775808", "%00", "a%00b", "search", "1%0a", "%ff"} {
		f.Add(s)
	}
	e, _ := fuzzServer(f)
	f.Fuzz(func(t *testing.T, id string) {
		for _, suffix := range []string{"", "/weight-history", "/measurements", "/nutrition", "/average-steps", "/export"} {
			serveFuzz(t, e, "GET", "/public-api/trainees/"+url.PathEscape(id)+suffix, nil)
		}
		// Never the trainee's e-mail: the erase is refused (1028) or the id unknown.
		serveFuzz(t, e, "POST", "/public-api/trainees/"+url.PathEscape(id)+"/erase", []byte(`{"confirm":"nobody@example.com"}`))
	})
}

func FuzzSearchQuery(f *testing.F) {
	f.Add("ada", "live", "0", "20", "id")
	f.Add("\x00", "all", "1", "100", "name,desc")
	f.Add("a\x00b", "", "", "", "")
	f.Add("12\x003", "expired", "-1", "0", "email,up")
	f.Add("\xff", "deleted\x00", "2147483648", "101", "lastTrained,asc")
	f.Add("7700 900", "active", "04", "+5", "expirationDate")
	f.Add("%_\\'\"", "ALL", " 1", "1e1", ",")
	// FTS5 query syntax, which SQLite's prefilter must quote (store qMatch).
	f.Add(`"a" OR b* NEAR(c d) ^e: {f} -g`, "live", "0", "20", "id")
	f.Add(`""`, "all", "0", "20", "name")
	f.Add("ł\x01", "live", "0", "20", "id")
	e, _ := fuzzServer(f)
	f.Fuzz(func(t *testing.T, q, status, page, size, sort string) {
		v := url.Values{"q": {q}, "status": {status}, "page": {page}, "size": {size}, "sort": {sort}}
		for k, x := range v {
			if x[0] == "" {
				delete(v, k)
			}
		}
		serveFuzz(t, e, "GET", "/public-api/trainees/search?"+v.Encode(), nil)
	})
}

func FuzzSearchRawQuery(f *testing.F) {
	for _, s := range []string{"q=%00", "q=a%00b", "q=12%003", "q=%ff", "q=a&q=b", "size=5&size=x", "q=%", "page=%2B1", ";", "q=\x00"} {
		f.Add(s)
	}
	e, _ := fuzzServer(f)
	f.Fuzz(func(t *testing.T, raw string) {
		serveFuzz(t, e, "GET", "/public-api/trainees/search?"+raw, nil)
	})
}

func FuzzTrackedQuery(f *testing.F) {
	f.Add(uint8(0), "01-11-2026", "21-11-2026", "", "")
	f.Add(uint8(1), "\x00", "", "", "WAIST")
	f.Add(uint8(1), "", "", "", "WAIST\x00")
	f.Add(uint8(2), "", "", "29-02-2024", "")
	f.Add(uint8(2), "", "", "01-01-0001\x00", "")
	f.Add(uint8(3), "31-12-9999", "01-01-0001", "\xff", "\xff")
	f.Add(uint8(0), "29-02-2024", "01-03-2025", "", "")
	e, id := fuzzServer(f)
	routes := []string{"weight-history", "measurements", "nutrition", "average-steps", "export"}
	f.Fuzz(func(t *testing.T, route uint8, from, to, date, typ string) {
		v := url.Values{}
		for k, x := range map[string]string{"from": from, "to": to, "date": date, "type": typ} {
			if x != "" {
				v.Set(k, x)
			}
		}
		serveFuzz(t, e, "GET", "/public-api/trainees/"+id+"/"+routes[int(route)%len(routes)]+"?"+v.Encode(), nil)
	})
}
