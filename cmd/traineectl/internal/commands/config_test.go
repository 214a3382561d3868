package commands_test

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/traineed/traineed/cmd/traineectl/internal/iostreams"
)

func TestConfigProfiles(t *testing.T) {
	s := requestStub(t)
	h := newHarness(t, "", "")
	delete(h.env, "TRAINEECTL_BASE_URL")
	delete(h.env, "TRAINEECTL_API_KEY")
	path := filepath.Join(h.env["XDG_CONFIG_HOME"], "traineectl", "config.yaml")

	r := h.run("config", "list").expect(t, 0)
	if r.out != "CURRENT\tNAME\tBASE URL\tAPI KEY\n" {
		t.Errorf("empty list: %q", r.out)
	}
	r = h.run("config", "set-profile", "prod", "--base-url", s.URL, "--api-key", stubKey).expect(t, 0)
	if r.out != "" || r.err != "Saved profile prod (current) in "+path+"\n" {
		t.Errorf("%s", r)
	}
	h.run("config", "set-profile", "stage", "--base-url", "http://127.0.0.1:1", "--api-key", "pk_stagestagestagestagestagestagestagestage").expect(t, 0)
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("profile file mode %v, want 0600", st.Mode().Perm())
	}
	b, _ := os.ReadFile(path)
	want := "current: prod\nprofiles:\n  prod:\n    base-url: " + s.URL + "\n    api-key: " + stubKey +
		"\n  stage:\n    base-url: http://127.0.0.1:1\n    api-key: pk_stagestagestagestagestagestagestagestage\n"
	if string(b) != want {
		t.Errorf("file:\n%s\nwant:\n%s", b, want)
	}

	r = h.runWith(runOpts{tty: true}, "config", "list").expect(t, 0)
	wantList := "CURRENT  NAME   BASE URL                API KEY\n" +
		"*        prod   " + s.URL + strings.Repeat(" ", 24-len(s.URL)) + "pk_stubs…\n" +
		"         stage  http://127.0.0.1:1      pk_stage…\n"
	if r.out != wantList {
		t.Errorf("list:\n%s\nwant:\n%s", r.out, wantList)
	}
	r = h.run("config", "list", "-o", "json").expect(t, 0)
	if !strings.Contains(r.out, `"name": "prod",`) || !strings.Contains(r.out, `"current": true,`) || !strings.Contains(r.out, `"apiKey": "pk_stage…"`) {
		t.Errorf("json list: %s", r.out)
	}
	r = h.run("config", "list", "-o", "csv").expect(t, 0)
	if !strings.HasPrefix(r.out, "current,name,baseUrl,apiKey\ntrue,prod,") {
		t.Errorf("csv list: %s", r.out)
	}
	for _, f := range []string{"table", "json", "yaml", "csv"} {
		if out := h.run("config", "list", "-o", f).out; strings.Contains(out, stubKey[8:]) {
			t.Errorf("config list -o %s shows a key: %s", f, out)
		}
	}

	// The current profile is used ...
	h.run("get", "41").expect(t, 0)
	// ... --profile picks another (which cannot connect: exit 1) ...
	h.run("--profile", "stage", "get", "41").expect(t, 1)
	// ... the environment wins over the profile, and the flag over the environment.
	h.env["TRAINEECTL_API_KEY"] = "pk_wrong"
	h.run("get", "41").expect(t, 0)
	h.run("get", "41", "--api-key", "pk_flag").expect(t, 0)
	keys := []string{}
	for _, r := range s.requests() {
		keys = append(keys, r.Header.Get("X-API-Key"))
	}
	equalLines(t, "keys sent", keys, []string{stubKey, "pk_wrong", "pk_flag"})
	delete(h.env, "TRAINEECTL_API_KEY")

	r = h.run("config", "use", "stage").expect(t, 0)
	if r.err != "Now using profile stage\n" {
		t.Errorf("use: %s", r)
	}
	h.run("get", "41").expect(t, 1)
	r = h.run("config", "use", "nope").expect(t, 2)
	if !strings.Contains(r.err, `no profile "nope"`) {
		t.Errorf("%s", r)
	}
	h.run("config", "set-profile", "x").expect(t, 2)
	// Rotating the key keeps the address.
	rotated := "pk_" + strings.Repeat("r0", 20)
	h.run("config", "set-profile", "prod", "--api-key", rotated).expect(t, 0)
	b, _ = os.ReadFile(path)
	if !strings.Contains(string(b), "current: stage\n") || !strings.Contains(string(b), "base-url: "+s.URL+"\n    api-key: "+rotated+"\n") {
		t.Errorf("after rotation:\n%s", b)
	}
	r = h.run("__complete", "config", "use", "").expect(t, 0)
	if r.out != "prod\t"+s.URL+"\nstage\thttp://127.0.0.1:1\n:4\n" {
		t.Errorf("profile completion %q", r.out)
	}
}

func TestConfigFallsBackToHome(t *testing.T) {
	h := newHarness(t, "", "")
	delete(h.env, "XDG_CONFIG_HOME")
	h.run("config", "set-profile", "p", "--base-url", "http://x").expect(t, 0)
	if _, err := os.Stat(filepath.Join(h.env["HOME"], ".config", "traineectl", "config.yaml")); err != nil {
		t.Error(err)
	}
}

func TestVersion(t *testing.T) {
	h := newHarness(t, "", "")
	line := "traineectl version 1.2.3-test (commit 0123abc, built 2026-11-01T10:00:00Z, " + runtime.Version() + ")\n"
	r := h.run("version").expect(t, 0)
	if r.out != line {
		t.Errorf("%q", r.out)
	}
	r = h.run("version", "-o", "json").expect(t, 0)
	if r.out != "{\n  \"version\": \"1.2.3-test\",\n  \"commit\": \"0123abc\",\n  \"date\": \"2026-11-01T10:00:00Z\",\n  \"go\": \""+runtime.Version()+"\"\n}\n" {
		t.Errorf("%q", r.out)
	}
	r = h.run("version", "-o", "yaml").expect(t, 0)
	if r.out != "version: 1.2.3-test\ncommit: 0123abc\ndate: \"2026-11-01T10:00:00Z\"\ngo: "+runtime.Version()+"\n" {
		t.Errorf("%q", r.out)
	}
	r = h.run("version", "-o", "csv").expect(t, 0)
	if r.out != "version,commit,date,go\n1.2.3-test,0123abc,2026-11-01T10:00:00Z,"+runtime.Version()+"\n" {
		t.Errorf("%q", r.out)
	}
	// --version, as gh and stripe take it: the same line as `version`.
	r = h.run("--version").expect(t, 0)
	if r.out != line {
		t.Errorf("--version: %q", r.out)
	}
}

func TestHelp(t *testing.T) {
	h := newHarness(t, "", "")
	r := h.run("--help").expect(t, 0)
	for _, want := range []string{"create", "get", "search", "update", "delete", "restore", "tui", "weight", "measurements", "nutrition", "steps", "completion", "version", "config", "Exit status"} {
		if !strings.Contains(r.out, want) {
			t.Errorf("help lacks %q", want)
		}
	}
	r = h.run("help", "update").expect(t, 0)
	if !strings.Contains(r.out, "traineectl update 41 --expires none --phone none") {
		t.Errorf("update help lacks its examples:\n%s", r.out)
	}
	r = h.run("list", "--help").expect(t, 0)
	if !strings.Contains(r.out, "Aliases:\n  search, list") {
		t.Errorf("search help:\n%s", r.out)
	}
	h.run("tui").expect(t, 2)
}

func TestCompletionScripts(t *testing.T) {
	h := newHarness(t, "", "")
	for shell, marker := range map[string]string{
		"bash":       "__start_traineectl()",
		"zsh":        "#compdef traineectl",
		"fish":       "complete -c traineectl",
		"powershell": "Register-ArgumentCompleter",
	} {
		r := h.run("completion", shell).expect(t, 0)
		if !strings.Contains(r.out, marker) {
			t.Errorf("%s script lacks %q", shell, marker)
		}
	}
}

// config with an unknown subcommand is a usage error, as at the root.
func TestConfigUnknownSubcommand(t *testing.T) {
	h := newHarness(t, "", "")
	r := h.run("config", "lsit").expect(t, 2)
	if !strings.Contains(r.err, `unknown command "lsit" for "traineectl config"`) || !strings.Contains(r.err, `did you mean "list"?`) || r.out != "" {
		t.Errorf("%s", r)
	}
	r = h.run("config").expect(t, 0)
	if !strings.Contains(r.out, "delete-profile") || !strings.Contains(r.out, "current") {
		t.Errorf("config help:\n%s", r.out)
	}
	h.run("bogus").expect(t, 2)
}

// Every command group refuses a subcommand it does not have, as config
// does, and shows its help when called alone (but trainers, which lists
// them alone: TestTrainerNames).
func TestGroupsRefuseUnknownSubcommands(t *testing.T) {
	h := newHarness(t, "", "")
	for _, group := range []string{"config", "automations", "webhooks", "events", "trainers", "keys", "company"} {
		r := h.run(group, "bogus").expect(t, 2)
		if !strings.Contains(r.err, `unknown command "bogus" for "traineectl `+group+`"`) || r.out != "" {
			t.Errorf("%s bogus: %s", group, r)
		}
		if group == "trainers" {
			continue
		}
		if r = h.run(group).expect(t, 0); !strings.Contains(r.out, "Available Commands") {
			t.Errorf("%s alone:\n%s", group, r.out)
		}
	}
}

// The key can come from stdin or a prompt that does not echo, never only
// from the command line.
func TestConfigKeyFromStdinAndPrompt(t *testing.T) {
	h := newHarness(t, "", "")
	path := filepath.Join(h.env["XDG_CONFIG_HOME"], "traineectl", "config.yaml")
	k1 := "pk_" + strings.Repeat("a1", 20)
	r := h.runWith(runOpts{stdin: k1 + "\n"}, "config", "set-profile", "p", "--base-url", "http://x.example", "--api-key-stdin").expect(t, 0)
	if b, _ := os.ReadFile(path); !strings.Contains(string(b), "api-key: "+k1+"\n") {
		t.Errorf("--api-key-stdin:\n%s\n%s", b, r)
	}
	h.runWith(runOpts{stdin: "\n"}, "config", "set-profile", "p", "--api-key-stdin").expect(t, 2)
	h.runWith(runOpts{stdin: "pk_short\n"}, "config", "set-profile", "p", "--api-key-stdin").expect(t, 2)
	h.runWith(runOpts{stdin: k1 + "\n"}, "config", "set-profile", "p", "--api-key-stdin", "--api-key", k1).expect(t, 2)

	// On a terminal, the key is asked for without echo.
	k2 := "pk_" + strings.Repeat("b2", 20)
	ios := func(answer string) func(*iostreams.IOStreams) {
		return func(s *iostreams.IOStreams) { s.ReadPassword = func() (string, error) { return answer, nil } }
	}
	r = h.runWith(runOpts{tty: true, setup: ios(k2)}, "config", "set-profile", "q", "--base-url", "http://y.example").expect(t, 0)
	if !strings.Contains(r.err, "API key for profile q (pk_..., not echoed") || strings.Contains(r.err, k2) {
		t.Errorf("prompt: %s", r)
	}
	if b, _ := os.ReadFile(path); !strings.Contains(string(b), "api-key: "+k2+"\n") {
		t.Errorf("prompted key not saved:\n%s", b)
	}
	// An empty answer keeps the key.
	h.runWith(runOpts{tty: true, setup: ios("")}, "config", "set-profile", "q", "--base-url", "http://z.example").expect(t, 0)
	if b, _ := os.ReadFile(path); !strings.Contains(string(b), "base-url: http://z.example\n    api-key: "+k2+"\n") {
		t.Errorf("empty answer:\n%s", b)
	}
	// Off a terminal nothing is asked: without a setting it is a usage error.
	h.run("config", "set-profile", "r").expect(t, 2)
}

func TestConfigDeleteCurrentGet(t *testing.T) {
	h := newHarness(t, "", "")
	delete(h.env, "TRAINEECTL_BASE_URL")
	delete(h.env, "TRAINEECTL_API_KEY")
	k := "pk_" + strings.Repeat("c3", 20)
	h.run("config", "current").expect(t, 1)
	h.runWith(runOpts{stdin: k}, "config", "set-profile", "a", "--base-url", "http://a.example", "--api-key-stdin").expect(t, 0)
	h.run("config", "set-profile", "b", "--base-url", "http://b.example").expect(t, 0)
	if r := h.run("config", "current").expect(t, 0); r.out != "a\n" {
		t.Errorf("current: %s", r)
	}
	if r := h.run("config", "current", "--jq", ".name").expect(t, 0); r.out != "a\n" {
		t.Errorf("current --jq: %s", r)
	}
	if r := h.run("config", "get", "base-url").expect(t, 0); r.out != "http://a.example\n" {
		t.Errorf("get base-url: %s", r)
	}
	if r := h.run("config", "get", "api-key").expect(t, 0); strings.Contains(r.out, k) || !strings.HasPrefix(r.out, "pk_c3c3") {
		t.Errorf("get api-key shows the key: %s", r)
	}
	if r := h.run("config", "get", "api-key", "--show-key").expect(t, 0); r.out != k+"\n" {
		t.Errorf("get api-key --show-key: %s", r)
	}
	if r := h.run("--profile", "b", "config", "get").expect(t, 0); r.out != "NAME\tVALUE\tFROM\nbase-url\thttp://b.example\tprofile b\napi-key\t\t\nprofile\tb\t--profile\n" {
		t.Errorf("get: %q", r.out)
	}
	h.env["TRAINEECTL_BASE_URL"] = "http://env.example"
	if r := h.run("config", "get", "-o", "json", "--jq", ".[0].from").expect(t, 0); r.out != "TRAINEECTL_BASE_URL\n" {
		t.Errorf("get from env: %s", r)
	}
	h.run("config", "get", "shoe").expect(t, 2)
	h.run("config", "delete-profile", "nope").expect(t, 2)
	r := h.run("config", "delete-profile", "a").expect(t, 0)
	if !strings.Contains(r.err, "Deleted profile a") || !strings.Contains(r.err, "no profile is current now") {
		t.Errorf("%s", r)
	}
	if r := h.run("config", "list", "--jq", "map(.name)").expect(t, 0); r.out != `["b"]`+"\n" {
		t.Errorf("after delete: %s", r)
	}
	h.run("config", "current").expect(t, 1)
}

// A key piped to set-profile without --api-key-stdin is not dropped
// silently (a profile saved without its key): the command says so and
// saves nothing. Other piped text is no key and changes nothing.
func TestSetProfileKeyPipedWithoutTheFlag(t *testing.T) {
	h := newHarness(t, "", "")
	key := "pk_" + strings.Repeat("a", 40)
	r := h.runWith(runOpts{stdin: key + "\n"}, "config", "set-profile", "prod", "--base-url", "https://api.example.com")
	if r.code != 2 || !strings.Contains(r.err, "stdin holds an API key, but --api-key-stdin was not given") {
		t.Fatalf("piped key without the flag: %s", r)
	}
	if r := h.run("config", "list").expect(t, 0); strings.Contains(r.out, "prod") {
		t.Errorf("a profile was saved: %s", r)
	}
	h.runWith(runOpts{stdin: "hello\n"}, "config", "set-profile", "prod", "--base-url", "https://api.example.com").expect(t, 0)
	h.runWith(runOpts{stdin: key + "\n"}, "config", "set-profile", "prod", "--api-key-stdin").expect(t, 0)
}
