package commands_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/cmd/traineectl/internal/bulkimport"
)

// The help that lists the trainee's fields in prose names every one the
// field table has: create's bulk columns (with their other names), the
// columns export writes, and the fields whose empty cell apply clears. A
// field added to the table fails here until the help says so.
func TestHelpNamesEveryField(t *testing.T) {
	h := newHarness(t, "http://127.0.0.1:1", "unused")
	help := func(verb string) string {
		out := h.run(verb, "--help").expect(t, 0).out
		return strings.Join(strings.Fields(out), " ")
	}
	names := func(text string, name string) bool {
		return regexp.MustCompile(`(^|[^A-Za-z])` + regexp.QuoteMeta(name) + `([^A-Za-z]|$)`).MatchString(text)
	}
	create, export, apply := help("create"), help("export"), help("apply")
	// ColumnNames: "name, email, password, phoneNumber (phone), ...".
	for _, col := range strings.Split(bulkimport.ColumnNames, ", ") {
		name, alias, _ := strings.Cut(strings.TrimSuffix(col, ")"), " (")
		for _, n := range []string{name, alias} {
			if n != "" && !names(create, n) {
				t.Errorf("create --help does not name the bulk column %s", n)
			}
		}
	}
	for _, pf := range api.CreateFields {
		if !pf.WriteOnly && !names(export, pf.Name) {
			t.Errorf("export --help does not name the column %s", pf.Name)
		}
		if pf.Nullable && !names(apply, pf.Name) {
			t.Errorf("apply --help does not say that an empty cell clears %s", pf.Name)
		}
	}
}

// events --help lists every event type the feed may hold, from the
// server's one list.
func TestEventsHelpListsEveryType(t *testing.T) {
	h := newHarness(t, "http://127.0.0.1:1", "unused")
	out := strings.Join(strings.Fields(h.run("events", "--help").expect(t, 0).out), " ")
	for _, typ := range api.FeedEventTypes {
		if !strings.Contains(out, typ) {
			t.Errorf("events --help lacks %s", typ)
		}
	}
}
