package commands_test

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
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
	h.run("config", "set-profile", "stage", "--base-url", "http://127.0.0.1:1", "--api-key", "pk_stagestagestagestagestagestagestagestag").expect(t, 0)
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("profile file mode %v, want 0600", st.Mode().Perm())
	}
	b, _ := os.ReadFile(path)
	want := "current: prod\nprofiles:\n  prod:\n    base-url: " + s.URL + "\n    api-key: " + stubKey +
		"\n  stage:\n    base-url: http://127.0.0.1:1\n    api-key: pk_stagestagestagestagestagestagestagestag\n"
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
	h.run("config", "set-profile", "prod", "--api-key", "pk_rotated").expect(t, 0)
	b, _ = os.ReadFile(path)
	if !strings.Contains(string(b), "current: stage\n") || !strings.Contains(string(b), "base-url: "+s.URL+"\n    api-key: pk_rotated\n") {
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
	r := h.run("version").expect(t, 0)
	if r.out != "traineectl version 1.2.3-test ("+runtime.Version()+")\n" {
		t.Errorf("%q", r.out)
	}
	r = h.run("version", "-o", "json").expect(t, 0)
	if r.out != "{\n  \"version\": \"1.2.3-test\",\n  \"go\": \""+runtime.Version()+"\"\n}\n" {
		t.Errorf("%q", r.out)
	}
	r = h.run("version", "-o", "yaml").expect(t, 0)
	if r.out != "version: 1.2.3-test\ngo: "+runtime.Version()+"\n" {
		t.Errorf("%q", r.out)
	}
	r = h.run("version", "-o", "csv").expect(t, 0)
	if r.out != "version,go\n1.2.3-test,"+runtime.Version()+"\n" {
		t.Errorf("%q", r.out)
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
