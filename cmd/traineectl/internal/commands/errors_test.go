package commands_test

import (
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"
)

func errorStub(t *testing.T) *stubAPI {
	s := newStubAPI(t)
	s.handle("GET /public-api/trainees/1", 500, "")
	s.handle("GET /public-api/trainees/2", 500, "", "X-Error-Reason", "trainee-not-found")
	s.handle("GET /public-api/trainees/3", 401, "")
	s.handle("POST /public-api/trainees", 400,
		`{"errorCode":1002,"message":"e-mail address is not valid","field":"email","errors":[{"errorCode":1002,"message":"e-mail address is not valid","field":"email"},{"errorCode":1003,"message":"password must be 8 to 128 characters","field":"password"}]}`)
	s.handle("GET /public-api/trainees/4", 200, envelope(traineeJSON(4, "Dee", "dee@example.com", true)))
	s.handle("GET /public-api/trainees/5", 503, "")
	return s
}

func TestExitStatusesAndRetries(t *testing.T) {
	s := errorStub(t)
	for _, tc := range []struct {
		name     string
		args     []string
		code     int
		attempts int
		sleeps   []time.Duration
		stderr   string // regexp
		json     string // the error object of the same run with -o json, its request id removed
	}{
		{"server error", []string{"get", "1"}, 6, 3, []time.Duration{time.Second, 5 * time.Second},
			`^error: server error: 500 Internal Server Error \(after 3 attempts\)\nrequest id: [0-9a-f]{32} \(quote it to support\)\n$`,
			`{"error":{"status":500,"errorCode":null,"message":"server error: 500 Internal Server Error (after 3 attempts)"}}`},
		{"503 too", []string{"get", "5"}, 6, 3, []time.Duration{time.Second, 5 * time.Second}, `^error: server error: 503`, ""},
		{"not found", []string{"get", "2"}, 4, 1, nil, `^error: trainee 2 not found\n$`,
			`{"error":{"status":500,"errorCode":null,"message":"trainee 2 not found"}}`},
		{"auth", []string{"get", "3"}, 3, 1, nil, `^error: authentication refused \(401\): check the API key\nhint: `,
			`{"error":{"status":401,"errorCode":null,"message":"authentication refused (401): check the API key"}}`},
		{"rejected", []string{"create", "--name", "A", "--email", "bad", "--password", "short"}, 5, 1, nil,
			`^error: request rejected \(1002\): email: e-mail address is not valid \(and 1 more\)\n  - email: e-mail address is not valid \(1002\)\n  - password: password must be 8 to 128 characters \(1003\)\n$`,
			`{"error":{"status":400,"errorCode":1002,"message":"e-mail address is not valid","field":"email","errors":[{"errorCode":1002,"message":"e-mail address is not valid","field":"email"},{"errorCode":1003,"message":"password must be 8 to 128 characters","field":"password"}]}}`},
		{"usage", []string{"get", "x"}, 2, 0, nil, `^error: invalid trainee id "x": ids are positive integers\nRun with --help for usage.\n$`,
			`{"error":{"status":null,"errorCode":null,"message":"invalid trainee id \"x\": ids are positive integers"}}`},
		{"unknown flag", []string{"get", "4", "--bogus"}, 2, 0, nil, `^error: unknown flag: --bogus\n`, ""},
		{"unknown command", []string{"frobnicate"}, 2, 0, nil, `^error: unknown command "frobnicate" for "traineectl"\n`, ""},
		{"bad output", []string{"get", "4", "-o", "xml"}, 2, 0, nil, `^error: invalid output format "xml"`, ""},
		{"ok", []string{"get", "4"}, 0, 1, nil, `^$`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, s.URL, stubKey)
			before := len(s.requests())
			r := h.run(tc.args...).expect(t, tc.code)
			if n := len(s.requests()) - before; n != tc.attempts {
				t.Errorf("%d attempts, want %d", n, tc.attempts)
			}
			if !reflect.DeepEqual(h.sleeps, tc.sleeps) {
				t.Errorf("slept %v, want %v", h.sleeps, tc.sleeps)
			}
			if !regexp.MustCompile(tc.stderr).MatchString(r.err) {
				t.Errorf("stderr %q does not match %q", r.err, tc.stderr)
			}
			if tc.code != 0 && r.out != "" {
				t.Errorf("stdout on error: %q", r.out)
			}
			if tc.json == "" {
				return
			}
			r = h.run(append(tc.args, "-o", "json")...).expect(t, tc.code)
			if r.out != "" || strings.Count(r.err, "\n") != 1 {
				t.Fatalf("want one JSON line on stderr and nothing on stdout: %s", r)
			}
			var obj map[string]map[string]any
			if err := json.Unmarshal([]byte(r.err), &obj); err != nil {
				t.Fatalf("stderr is not JSON: %v\n%s", err, r.err)
			}
			if id, ok := obj["error"]["requestId"]; ok != (tc.attempts > 0) || ok && !regexp.MustCompile(`^[0-9a-f]{32}$`).MatchString(id.(string)) {
				t.Errorf("requestId %v", id)
			}
			delete(obj["error"], "requestId")
			b, _ := json.Marshal(obj)
			var want map[string]map[string]any
			_ = json.Unmarshal([]byte(tc.json), &want)
			if !reflect.DeepEqual(obj, want) {
				t.Errorf("error object:\n got %s\nwant %s", b, tc.json)
			}
		})
	}
}

func TestConnectionRefused(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := "http://" + l.Addr().String()
	l.Close()
	h := newHarness(t, addr, stubKey)
	logPath := filepath.Join(t.TempDir(), "support.log")
	r := h.run("get", "4", "--log-file", logPath).expect(t, 1)
	if !strings.HasPrefix(r.err, "error: cannot reach "+addr+"/public-api/trainees/4: dial tcp") || !strings.Contains(r.err, "(after 3 attempts)") {
		t.Errorf("stderr: %q", r.err)
	}
	if !reflect.DeepEqual(h.sleeps, []time.Duration{time.Second, 5 * time.Second}) {
		t.Errorf("slept %v", h.sleeps)
	}
	b, _ := os.ReadFile(logPath)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 3 {
		t.Fatalf("want 3 attempts in the log:\n%s", b)
	}
	for i, l := range lines {
		if !strings.Contains(l, "attempt="+string(rune('1'+i))) || !strings.Contains(l, "status=0") || !strings.Contains(l, "connection refused") {
			t.Errorf("line %d: %s", i+1, l)
		}
	}
}

func TestSupportLogFile(t *testing.T) {
	s := errorStub(t)
	h := newHarness(t, s.URL, stubKey)
	logPath := filepath.Join(t.TempDir(), "support.log")
	h.run("get", "1", "--log-file", logPath).expect(t, 6)
	h.run("create", "--name", "A", "--email", "bad", "--password", "hunter2hunter2", "--log-file", logPath).expect(t, 5)
	h.env["TRAINEECTL_API_KEY"] = ""
	h.run("get", "4", "--log-file", logPath, "--api-key", stubKey, "-o", "json").expect(t, 0)
	b, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(logPath)
	if st.Mode().Perm() != 0o600 {
		t.Errorf("log file mode %v", st.Mode().Perm())
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 5 {
		t.Fatalf("want 5 lines (3 attempts, 1, 1):\n%s", b)
	}
	line := regexp.MustCompile(`^time=(\S+) level=(INFO|ERROR) msg=request request_id=([0-9a-f]{32}) attempt=(\d) method=(GET|POST) url=(\S+) status=(\d+) `)
	var ids []string
	for i, l := range lines {
		m := line.FindStringSubmatch(l)
		if m == nil {
			t.Fatalf("line %d: %s", i+1, l)
		}
		if _, err := time.Parse(time.RFC3339, m[1]); err != nil {
			t.Errorf("line %d: time %q is not RFC 3339 with a zone: %v", i+1, m[1], err)
		}
		ids = append(ids, m[3])
		wantURL := s.URL + map[bool]string{true: "/public-api/trainees", false: "/public-api/trainees/1"}[i == 3]
		if i == 4 {
			wantURL = s.URL + "/public-api/trainees/4"
		}
		if m[6] != wantURL {
			t.Errorf("line %d: url %s, want %s", i+1, m[6], wantURL)
		}
		wantStatus := []string{"500", "500", "500", "400", "200"}[i]
		if m[7] != wantStatus {
			t.Errorf("line %d: status %s, want %s", i+1, m[7], wantStatus)
		}
	}
	if ids[0] != ids[1] || ids[1] != ids[2] || ids[2] == ids[3] || ids[3] == ids[4] {
		t.Errorf("request ids %v: one per call, the same across retries", ids)
	}
	if !strings.Contains(lines[3], "error_code=1002") || !strings.Contains(lines[3], `response_body="{\"errorCode\":1002`) {
		t.Errorf("the 400 line lacks its errorCode or body: %s", lines[3])
	}
	if !strings.Contains(lines[4], `\"name\":\"Dee\"`) {
		t.Errorf("the 200 line lacks its body: %s", lines[4])
	}
	if strings.Contains(string(b), stubKey) || strings.Contains(string(b), stubKey[3:]) {
		t.Error("the API key is in the log")
	}
	if strings.Contains(string(b), "hunter2") {
		t.Error("the password is in the log")
	}
	// The server got the key and the request ids of the log.
	for _, r := range s.requests()[len(s.requests())-5:] {
		if r.Header.Get("X-API-Key") != stubKey || r.Header.Get("User-Agent") != "traineectl/1.2.3-test" {
			t.Errorf("headers %v", r.Header)
		}
	}
}

func TestVerbose(t *testing.T) {
	s := errorStub(t)
	h := newHarness(t, s.URL, stubKey)
	r := h.run("get", "4", "-v", "-o", "json").expect(t, 0)
	var obj map[string]any
	if err := json.Unmarshal([]byte(r.out), &obj); err != nil || obj["name"] != "Dee" {
		t.Errorf("stdout is not only the trainee: %v\n%s", err, r.out)
	}
	for _, want := range []string{"> GET " + s.URL + "/public-api/trainees/4\n", "> X-API-Key: pk_stubs…\n", "> User-Agent: traineectl/1.2.3-test\n", "< 200 OK (", `< {"timestamp":`} {
		if !strings.Contains(r.err, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.err)
		}
	}
	if strings.Contains(r.err, stubKey) {
		t.Error("verbose output shows the key")
	}
}
