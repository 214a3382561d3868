package commands_test

import (
	"fmt"
	"strings"
	"testing"
)

// What each command sends, recorded by a stub; what the server does with it
// is tested against the real server in trainees_test.go.
func requestStub(t *testing.T) *stubAPI {
	s := newStubAPI(t)
	ada := envelope(traineeJSON(41, "Ada Park", "ada@example.com", true))
	s.handle("POST /public-api/trainees", 200, ada)
	s.handle("GET /public-api/trainees/41", 200, ada)
	s.handle("PUT /public-api/trainees/41", 200, ada)
	s.handle("DELETE /public-api/trainees/41", 200, envelope(traineeJSON(41, "Ada Park", "ada@example.com", false)))
	s.handle("DELETE /public-api/trainees/42", 200, envelope(traineeJSON(42, "Bo", "bo@example.com", false)))
	s.handle("PUT /public-api/trainees/42", 200, envelope(traineeJSON(42, "Bo", "bo@example.com", true)))
	s.handle("GET /public-api/trainees/99", 500, "", "X-Error-Reason", "trainee-not-found")
	s.handle("DELETE /public-api/trainees/99", 500, "", "X-Error-Reason", "trainee-not-found")
	s.handle("GET /public-api/trainees/search", 200,
		`{"timestamp":1,"content":[`+traineeJSON(41, "Ada Park", "ada@example.com", true)+`],"page":{"size":20,"number":0,"totalElements":1,"totalPages":1}}`)
	return s
}

func TestRequestsSent(t *testing.T) {
	for _, tc := range []struct {
		args  []string
		stdin string
		want  []string
	}{
		{[]string{"create", "--name", "Ada Park", "--email", "ada@example.com", "--password", "S3cret-pass"},
			"", []string{`POST /public-api/trainees {"name":"Ada Park","email":"ada@example.com","password":"S3cret-pass"}`}},
		{[]string{"create", "--name", "Ada", "--email", "a@b.co", "--password", "S3cret-pass", "--phone", "+44 7700 900123",
			"--dob", "1990-03-02", "--expires", "today", "--trainer", "7", "--weight-unit", "lb"},
			"", []string{`POST /public-api/trainees {"name":"Ada","email":"a@b.co","password":"S3cret-pass","phoneNumber":"+44 7700 900123","dateOfBirth":"02-03-1990","expirationDate":"21-11-2026","trainerId":7,"weightUnit":"LB"}`}},
		{[]string{"create", "--name", "Ada", "--email", "a@b.co", "--password-stdin"},
			"from-stdin-pw\nrest\n", []string{`POST /public-api/trainees {"name":"Ada","email":"a@b.co","password":"from-stdin-pw"}`}},
		{[]string{"update", "41", "--expires", "none", "--phone", "none", "--dob", "NONE"},
			"", []string{"GET /public-api/trainees/41", `PUT /public-api/trainees/41 {"phoneNumber":null,"dateOfBirth":null,"expirationDate":null}`}},
		{[]string{"update", "41", "--phone", "", "--dob", " ", "--expires="},
			"", []string{"GET /public-api/trainees/41", `PUT /public-api/trainees/41 {"phoneNumber":null,"dateOfBirth":null,"expirationDate":null}`}},
		{[]string{"create", "--name", "Ada", "--email", "a@b.co", "--password", "S3cret-pass", "--phone", "", "--dob", "none"},
			"", []string{`POST /public-api/trainees {"name":"Ada","email":"a@b.co","password":"S3cret-pass"}`}},
		{[]string{"update", "41", "--name", "Ada P", "--expires", "31-12-2027", "--trainer", "8", "--weight-unit", "kg"},
			"", []string{"GET /public-api/trainees/41", `PUT /public-api/trainees/41 {"name":"Ada P","expirationDate":"31-12-2027","trainerId":8,"weightUnit":"KG"}`}},
		{[]string{"update", "41", "--email", "new@example.com", "--password", "N3w-password", "--force-password-change=false", "--phone", "+447700900999", "--dob", "yesterday"},
			"", []string{"GET /public-api/trainees/41", `PUT /public-api/trainees/41 {"email":"new@example.com","password":"N3w-password","phoneNumber":"+447700900999","dateOfBirth":"20-11-2026","forcePasswordChange":false}`}},
		{[]string{"update", "41", "--password-stdin"}, "piped-pass\n", []string{"GET /public-api/trainees/41", `PUT /public-api/trainees/41 {"password":"piped-pass"}`}},
		{[]string{"delete", "41", "--yes"}, "", []string{"DELETE /public-api/trainees/41"}},
		{[]string{"delete", "-y", "41", "42"}, "", []string{"DELETE /public-api/trainees/41", "DELETE /public-api/trainees/42"}},
		{[]string{"restore", "41", "42"}, "", []string{`PUT /public-api/trainees/41 {"enabled":true}`, `PUT /public-api/trainees/42 {"enabled":true}`}},
		{[]string{"get", "41"}, "", []string{"GET /public-api/trainees/41"}},
		{[]string{"search"}, "", []string{"GET /public-api/trainees/search"}},
		{[]string{"list", "ada", "park", "--status", "all", "--page", "2", "--size", "5", "--sort", "name,desc"}, "",
			[]string{"GET /public-api/trainees/search?page=2&q=ada+park&size=5&sort=name%2Cdesc&status=all"}},
		{[]string{"search", "--all"}, "", []string{"GET /public-api/trainees/search?size=100"}},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			s := requestStub(t)
			h := newHarness(t, s.URL, stubKey)
			h.runWith(runOpts{stdin: tc.stdin}, tc.args...).expect(t, 0)
			equalLines(t, "requests", s.requestLines(), tc.want)
		})
	}
}

func TestUsageErrorsSendNothing(t *testing.T) {
	s := requestStub(t)
	h := newHarness(t, s.URL, stubKey)
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"create", "--email", "a@b.co", "--password", "S3cret-pass"}, "--name and --email are required"},
		{[]string{"create", "--name", "A", "--email", "a@b.co"}, "--password (or --password-stdin) is required"},
		{[]string{"create", "--name", "A", "--email", "a@b.co", "--password", "x", "--password-stdin"}, "none of the others can be"},
		{[]string{"create", "--name", "A", "--email", "a@b.co", "--password", "S3cret-pass", "--dob", "31-02-1990"}, `--dob: invalid date "31-02-1990"`},
		{[]string{"create", "-f", "trainees.xml"}, "cannot tell the format of trainees.xml"},
		{[]string{"create", "extra", "--name", "A"}, "wants 0 arguments"},
		{[]string{"create", "--name", "A", "--email", "a@b.co", "--password", "S3cret-pass", "--trainer", "seven"}, `--trainer "seven": this server cannot look a trainer up by name: give the trainer's id`},
		{[]string{"create", "--name", "A", "--email", "a@b.co", "--password", "S3cret-pass", "--trainer", "seven", "--dob", "31-02-1990"}, `--dob: invalid date "31-02-1990"`},
		{[]string{"update", "41"}, "nothing to change"},
		{[]string{"update", "41", "--expires", "someday"}, `--expires: invalid date "someday"`},
		{[]string{"update", "41", "--trainer", "Maya", "--expires", "someday"}, `--expires: invalid date "someday"`},
		{[]string{"update", "41", "--trainer", "Maya"}, `--trainer "Maya": this server cannot look a trainer up by name: give the trainer's id`},
		{[]string{"update"}, "wants 1 argument "},
		{[]string{"update", "41", "42", "--name", "x"}, "wants 1 argument "},
		{[]string{"update", "0", "--name", "x"}, `invalid trainee id "0"`},
		{[]string{"delete", "41"}, "refusing to delete without --yes when stdin is not a terminal; nothing was deleted"},
		{[]string{"delete", "41", "x", "--yes"}, `invalid trainee id "x"`},
		{[]string{"get", "041"}, `invalid trainee id "041"`},
		{[]string{"get", "+41"}, `invalid trainee id "+41"`},
		{[]string{"update", "41", "--name", "Ada\x00Park"}, "--name: name: name must not contain NUL (1016)"},
		{[]string{"update", "41", "--phone", "+4477\n00900123"}, "--phone: phoneNumber: phoneNumber must not contain control characters (U+000A) (1016)"},
		{[]string{"create", "--name", "A\x1b", "--email", "a@b.co", "--password", "S3cret-pass"}, "--name: name: name must not contain control characters (U+001B) (1016)"},
		{[]string{"update", "41", "--name", "Ada\u200bPark"}, "--name: name: name must not contain format characters (U+200B) (1016)"},
		{[]string{"update", "41", "--name", "Ad\u200dam"}, "--name: name: name must not contain format characters (U+200D) outside a word of an Indic or Arabic script (1016)"},
		{[]string{"update", "41", "--email", "twin\ufeff@alpha.example"}, "--email: email: e-mail address must not contain format characters (U+FEFF) (1002)"},
		{[]string{"update", "41", "--phone", "+447700900123\u2028"}, "--phone: phoneNumber: phone number must not contain line separators (U+2028) (1006)"},
		{[]string{"create", "--name", "Twin", "--email", "tw\u200bin@alpha.example", "--password", "S3cret-pass"}, "--email: email: e-mail address must not contain format characters (U+200B) (1002)"},
		{[]string{"create", "--name", "Twin\u2060", "--email", "twin@alpha.example", "--password", "S3cret-pass"}, "--name: name: name must not contain format characters (U+2060) (1016)"},
		{[]string{"create", "--name", "Twin", "--email", "twin@alpha.example", "--password", "S3cret-pass", "--phone", "+44\u00ad7700900123"}, "--phone: phoneNumber: phone number must not contain format characters (U+00AD) (1006)"},
		{[]string{"search", "ada\x00"}, "QUERY: q must not contain NUL"},
		{[]string{"restore"}, "wants at least 1 argument "},
		{[]string{"get"}, "wants at least 1 argument "},
		{[]string{"search", "--all", "--page", "1"}, "--all and --page cannot be used together"},
		{[]string{"search", "--size", "0"}, "--size must be between 1 and 100"},
		{[]string{"search", "--size", "101"}, "--size must be between 1 and 100"},
		{[]string{"search", "--page", "-1"}, "--page counts from 0"},
		{[]string{"completion", "tcsh"}, `unknown shell "tcsh"`},
		{[]string{"--profile", "nope", "get", "41"}, `no profile "nope"`},
	} {
		r := h.run(tc.args...)
		if r.code != 2 || r.out != "" || !strings.Contains(r.err, tc.msg) {
			t.Errorf("%v: want exit 2 with %q, got %s", tc.args, tc.msg, r)
		}
	}
	if reqs := s.requestLines(); len(reqs) != 0 {
		t.Errorf("usage errors sent %v", reqs)
	}
}

func TestDeleteConfirmation(t *testing.T) {
	s := requestStub(t)
	h := newHarness(t, s.URL, stubKey)
	r := h.runWith(runOpts{tty: true, stdin: "n\n"}, "delete", "41", "42")
	if r.code != 2 || r.err != "Delete 2 trainees (41, 42)? [y/N] error: not confirmed; nothing was deleted\nRun with --help for usage.\n" || r.out != "" {
		t.Errorf("declined: %s", r)
	}
	r = h.runWith(runOpts{tty: true, stdin: ""}, "delete", "41")
	if r.code != 2 || !strings.HasPrefix(r.err, "Delete trainee 41? [y/N] ") {
		t.Errorf("no answer: %s", r)
	}
	if reqs := s.requestLines(); len(reqs) != 0 {
		t.Fatalf("a declined delete sent %v", reqs)
	}
	r = h.runWith(runOpts{tty: true, stdin: "yes\n"}, "delete", "41").expect(t, 0)
	if r.err != "Delete trainee 41? [y/N] Deleted trainee 41 (Ada Park)\n" || !strings.Contains(r.out, "deleted") {
		t.Errorf("confirmed: %s", r)
	}
	equalLines(t, "requests", s.requestLines(), []string{"DELETE /public-api/trainees/41"})
}

// Several ids: each failure is reported and the others still happen.
func TestSeveralIDsPartialFailure(t *testing.T) {
	s := requestStub(t)
	h := newHarness(t, s.URL, stubKey)
	r := h.run("get", "41", "99", "-o", "json").expect(t, 4)
	if !strings.HasPrefix(r.out, "[\n  {\n    \"id\": 41,") || strings.Count(r.out, `"id"`) != 1 {
		t.Errorf("stdout: %s", r.out)
	}
	if r.err != `{"error":{"status":500,"errorCode":null,"message":"trainee 99 not found","requestId":"`+s.requests()[1].Header.Get("X-Request-Id")+`"}}`+"\n" {
		t.Errorf("stderr: %s", r.err)
	}
	r = h.run("delete", "--yes", "99", "42").expect(t, 4)
	if r.err != "error: trainee 99 not found\n" || !strings.Contains(r.out, "Bo") {
		t.Errorf("%s", r)
	}
	r = h.run("get", "99", "99").expect(t, 4)
	if r.out != "" || strings.Count(r.err, "not found") != 2 {
		t.Errorf("%s", r)
	}
	// One id: an object, not an array.
	r = h.run("get", "41", "-o", "json").expect(t, 0)
	if !strings.HasPrefix(r.out, "{\n") {
		t.Errorf("one id: %s", r.out)
	}
}

func TestSearchSummaryOnTerminal(t *testing.T) {
	s := newStubAPI(t)
	var content []string
	for i := int64(1); i <= 3; i++ {
		content = append(content, traineeJSON(i, fmt.Sprintf("T%d", i), fmt.Sprintf("t%d@example.com", i), true))
	}
	s.handle("GET /public-api/trainees/search", 200,
		`{"timestamp":1,"content":[`+strings.Join(content, ",")+`],"page":{"size":3,"number":1,"totalElements":12,"totalPages":4}}`)
	h := newHarness(t, s.URL, stubKey)
	r := h.runWith(runOpts{tty: true}, "search", "--page", "1", "--size", "3").expect(t, 0)
	if r.err != "page 2 of 4, 12 trainees\n" {
		t.Errorf("stderr %q", r.err)
	}
	if strings.Count(r.out, "\n") != 4 {
		t.Errorf("stdout:\n%s", r.out)
	}
	if strings.Contains(r.out, "\x1b[") {
		t.Errorf("colour with NO_COLOR:\n%s", r.out)
	}
	r = h.run("search", "--page", "1", "--size", "3").expect(t, 0)
	if r.err != "Showing 3 of 12 trainees; use --limit N or --all for more\n" || strings.Contains(r.out, "\x1b[") {
		t.Errorf("no note of the rest, or colour, without a terminal: %s", r)
	}
	r = h.run("search", "-q", "--page", "1", "--size", "3").expect(t, 0)
	if r.err != "" {
		t.Errorf("-q: %s", r)
	}
	r = h.runWith(runOpts{tty: true, color: true}, "search").expect(t, 0)
	if strings.Count(r.out, "\x1b[32mactive\x1b[0m") != 3 {
		t.Errorf("no colour on a terminal:\n%q", r.out)
	}
}
