package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/store/storetest"
)

// traineed runs the command in-process and returns stdout, stderr and the
// exit status.
func traineed(t *testing.T, db string, args ...string) (string, string, int) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(context.Background(), append([]string{"--db", db}, args...), strings.NewReader(""), &out, &errOut)
	return out.String(), errOut.String(), code
}

func ok(t *testing.T, db string, args ...string) string {
	t.Helper()
	out, errOut, code := traineed(t, db, args...)
	if code != 0 {
		t.Fatalf("traineed %v: exit %d: %s", args, code, errOut)
	}
	return out
}

func TestAdminCommands(t *testing.T) {
	storetest.EachURL(t, func(t *testing.T, db string) {
		if out := ok(t, db, "migrate"); out != "" {
			t.Fatalf("migrate printed %q", out)
		}
		idLine := regexp.MustCompile(`^[1-9][0-9]*\n$`)
		company := ok(t, db, "company", "create", "--name", "Acme Gym", "--time-zone", "Europe/Berlin")
		if !idLine.MatchString(company) {
			t.Fatalf("company create printed %q", company)
		}
		cid := strings.TrimSpace(company)
		if _, errOut, code := traineed(t, db, "company", "create", "--name", "Bad Zone", "--time-zone", "Mars/Olympus"); code != 1 || !strings.Contains(errOut, "Mars/Olympus") {
			t.Fatalf("bad zone: exit %d %q", code, errOut)
		}
		var cos []api.Company
		must(t, json.Unmarshal([]byte(ok(t, db, "company", "list", "-o", "json")), &cos))
		if len(cos) != 1 || cos[0].Name != "Acme Gym" || cos[0].TimeZone != "Europe/Berlin" {
			t.Fatalf("company list %+v", cos)
		}
		if table := ok(t, db, "company", "list"); !strings.Contains(table, "Acme Gym") || !strings.Contains(table, "Europe/Berlin") {
			t.Fatalf("company table %q", table)
		}
		trainer := ok(t, db, "trainer", "create", "--company", cid, "--name", "Sam Coach", "--email", "Sam@Acme.example")
		if !idLine.MatchString(trainer) {
			t.Fatalf("trainer create printed %q", trainer)
		}
		var trs []api.Trainer
		must(t, json.Unmarshal([]byte(ok(t, db, "trainer", "list", "--company", cid, "-o", "json")), &trs))
		if len(trs) != 1 || trs[0].Email != "sam@acme.example" || strconv.FormatInt(trs[0].ID, 10) != strings.TrimSpace(trainer) {
			t.Fatalf("trainer list %+v", trs)
		}
		if _, _, code := traineed(t, db, "trainer", "create", "--company", "999", "--name", "X", "--email", "x@y.example"); code != 1 {
			t.Fatalf("trainer of an unknown company: exit %d", code)
		}
		key := ok(t, db, "key", "create", "--company", cid, "--name", "CRM sync")
		if !regexp.MustCompile(`^pk_[A-Za-z0-9]{40}\n$`).MatchString(key) {
			t.Fatalf("key create printed %q", key)
		}
		key = strings.TrimSpace(key)
		listed := ok(t, db, "key", "list", "--company", cid, "-o", "json")
		var raw []map[string]any
		must(t, json.Unmarshal([]byte(listed), &raw))
		if len(raw) != 1 {
			t.Fatalf("key list %s", listed)
		}
		var fields []string
		for k := range raw[0] {
			fields = append(fields, k)
		}
		slices.Sort(fields)
		if !slices.Equal(fields, []string{"createdAt", "id", "lastUsedAt", "name", "prefix", "scope", "state"}) {
			t.Fatalf("key list fields %v", fields)
		}
		if raw[0]["prefix"] != key[:8] || raw[0]["state"] != "active" || raw[0]["name"] != "CRM sync" || raw[0]["lastUsedAt"] != nil || raw[0]["scope"] != "full" {
			t.Fatalf("key list %v", raw[0])
		}
		if strings.Contains(listed, key) {
			t.Fatal("key list shows the key")
		}
		kid := strconv.FormatFloat(raw[0]["id"].(float64), 'f', 0, 64)
		for _, step := range []struct{ verb, state string }{{"disable", "disabled"}, {"enable", "active"}} {
			if out := ok(t, db, "key", step.verb, kid); out != "" {
				t.Fatalf("key %s printed %q", step.verb, out)
			}
			if table := ok(t, db, "key", "list", "--company", cid); !strings.Contains(table, step.state) || !strings.Contains(table, key[:8]) {
				t.Fatalf("after %s: %s", step.verb, table)
			}
		}
		ok(t, db, "key", "delete", kid)
		if out := ok(t, db, "key", "list", "--company", cid, "-o", "json"); strings.TrimSpace(out) != "[]" {
			t.Fatalf("after delete: %q", out)
		}
		if _, _, code := traineed(t, db, "key", "delete", kid); code != 1 {
			t.Fatalf("deleting a deleted key: exit %d", code)
		}
		// A read key: listed with its scope; a bad scope is a usage error.
		rk := strings.TrimSpace(ok(t, db, "key", "create", "--company", cid, "--name", "BI", "--scope", "read"))
		if table := ok(t, db, "key", "list", "--company", cid); !strings.Contains(table, "read") || !strings.Contains(table, rk[:8]) {
			t.Fatalf("read key not listed with its scope: %s", table)
		}
		if _, _, code := traineed(t, db, "key", "create", "--company", cid, "--name", "X", "--scope", "write"); code != 2 {
			t.Fatalf("--scope write: exit %d", code)
		}
		if _, _, code := traineed(t, db, "key", "disable", "abc"); code != 2 {
			t.Fatalf("non-numeric key id: exit %d", code)
		}
		if _, _, code := traineed(t, db, "company", "create"); code != 2 {
			t.Fatalf("missing --name: exit %d", code)
		}
		if _, _, code := traineed(t, db, "company", "list", "-o", "xml"); code != 2 {
			t.Fatalf("bad -o: exit %d", code)
		}
	})
}

func TestDemoCommand(t *testing.T) {
	db := "sqlite:" + filepath.Join(t.TempDir(), "demo.db")
	key := ok(t, db, "demo")
	if !regexp.MustCompile(`^pk_[A-Za-z0-9]{40}\n$`).MatchString(key) {
		t.Fatalf("demo printed %q", key)
	}
	if !strings.Contains(ok(t, db, "company", "list"), "Demo Fitness") {
		t.Fatal("no demo company")
	}
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// stampFlags stamp the tests' build of the binary (binary) as
// .goreleaser.yaml stamps a release's.
const stampFlags = "-X github.com/traineed/traineed/cmd/internal/buildinfo.version=v9.8.7-test" +
	" -X github.com/traineed/traineed/cmd/internal/buildinfo.commit=0123456789abcdef0123456789abcdef01234567" +
	" -X github.com/traineed/traineed/cmd/internal/buildinfo.date=2026-11-28T22:00:00Z"

// A build stamped with -ldflags says so in --version: tag, commit, date.
func TestVersionStamped(t *testing.T) {
	out, err := exec.Command(binary(t), "--version").CombinedOutput()
	want := "traineed version v9.8.7-test (commit 0123456789abcdef0123456789abcdef01234567, built 2026-11-28T22:00:00Z)\n"
	if err != nil || string(out) != want {
		t.Fatalf("--version: %v %q, want %q", err, out, want)
	}
	// The metrics say the same build.
	base, _, _ := startServer(t, storetest.SQLiteURL(t))
	_, body := get(t, base+"/metrics")
	metric := `traineed_build_info{goversion="` + runtime.Version() + `",revision="0123456789abcdef0123456789abcdef01234567",version="v9.8.7-test"} 1`
	if !strings.Contains(body, metric) {
		t.Errorf("/metrics lacks %s", metric)
	}
}

// traineed --version prints its version, alone.
func TestVersionFlag(t *testing.T) {
	out, errOut, code := traineed(t, storetest.SQLiteURL(t), "--version")
	if code != 0 || !strings.HasPrefix(out, "traineed version ") || errOut != "" {
		t.Fatalf("--version: %d %q %q", code, out, errOut)
	}
}
