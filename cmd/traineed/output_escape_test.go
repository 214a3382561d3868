package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/apitest"
	"github.com/traineed/traineed/store"
	"github.com/traineed/traineed/store/storetest"
)

// traineedOn runs the command as on a terminal width columns wide (0: not
// a terminal) and returns stdout, stderr and the exit status.
func traineedOn(t *testing.T, db string, width int, args ...string) (string, string, int) {
	t.Helper()
	var out, errOut bytes.Buffer
	e := &env{ctx: context.Background(), in: strings.NewReader(""), out: &out, errOut: &errOut, width: width}
	code := runEnv(e, append([]string{"--db", db}, args...))
	return out.String(), errOut.String(), code
}

// listing is a command that prints stored text, with -o: its arguments
// and how many of the JSON's strings are the stored text, exactly.
type listing struct {
	args  []string
	exact int
}

// seedHostile stores apitest.HostileStored in every text an operator's
// list prints, as text stored before the text rules or a receiver's
// answer is: the company's name; the trainer's name and e-mail; the key's
// name and prefix, and its trainer's name; the webhook's URL, events and
// disabled reason; the event's id and type; the attempt's error and the
// receiver's response (recorded by the store, as the dispatcher records
// it). It returns the listings over them, by command path.
func seedHostile(t *testing.T, db string) map[string]listing {
	h := apitest.HostileStored
	ctx := context.Background()
	cid := strings.TrimSpace(ok(t, db, "company", "create", "--name", "Hostile Gym"))
	ok(t, db, "trainer", "create", "--company", cid, "--name", "Coach", "--email", "coach@hostile.example")
	ok(t, db, "key", "create", "--company", cid, "--name", "crm")
	hookID := strings.SplitN(ok(t, db, "webhook", "add", "--company", cid, "--url", "https://crm.example/in"), "\n", 2)[0]
	s := storetest.Open(t, db)
	var company int64
	fmt.Sscan(cid, &company)
	_, err := s.CreateTrainee(ctx, company, api.NewTrainee{Name: "Hook Trainee", Email: "hook@example.com",
		PasswordHash: "$argon2id$test", WeightUnit: "KG", CreatedByType: "ADMIN", Enabled: true})
	must(t, err)
	claimed, err := s.ClaimDeliveries(ctx, 10, store.ClaimLimits{}, time.Minute)
	must(t, err)
	if len(claimed) != 1 {
		t.Fatalf("%d deliveries claimed", len(claimed))
	}
	_, err = s.FinishDelivery(ctx, claimed[0], store.DeliveryAttempt{Started: time.Now(), StatusCode: 500,
		Latency: 12 * time.Millisecond, Err: h, Body: h}, []time.Duration{time.Hour})
	must(t, err)
	for _, q := range []string{
		"UPDATE companies SET name = ?",
		"UPDATE users SET name = ?, email = ? WHERE id IN (SELECT user_id FROM trainers)",
		"UPDATE api_keys SET name = ?, prefix = ?, trainer_id = (SELECT MIN(id) FROM trainers)",
		"UPDATE webhooks SET url = ?, events = ?, disabled_reason = ?, enabled = FALSE",
		"UPDATE webhook_events SET public_id = ?, type = ?",
	} {
		args := make([]any, strings.Count(q, "?"))
		for i := range args {
			args[i] = h
		}
		if _, err := storetest.DB(t, s).NewRaw(q, args...).Exec(ctx); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	return map[string]listing{
		"company list":       {[]string{"company", "list"}, 1},
		"trainer list":       {[]string{"trainer", "list", "--company", cid}, 2},
		"key list":           {[]string{"key", "list", "--company", cid}, 2},
		"webhook list":       {[]string{"webhook", "list", "--company", cid}, 3},
		"webhook deliveries": {[]string{"webhook", "deliveries", hookID}, 4},
	}
}

// listingCommands are the paths of the commands that take -o.
func listingCommands(c *cobra.Command) []string {
	var out []string
	if c.Flags().Lookup("output") != nil {
		out = append(out, strings.TrimPrefix(c.CommandPath(), "traineed "))
	}
	for _, sub := range c.Commands() {
		out = append(out, listingCommands(sub)...)
	}
	return out
}

// strings returns every string of a decoded JSON value, keys included.
func jsonStrings(v any) []string {
	switch x := v.(type) {
	case string:
		return []string{x}
	case []any:
		var out []string
		for _, e := range x {
			out = append(out, jsonStrings(e)...)
		}
		return out
	case map[string]any:
		var out []string
		for k, e := range x {
			out = append(append(out, k), jsonStrings(e)...)
		}
		return out
	}
	return nil
}

// TestOperatorOutputEscapesStoredText: every traineed command with -o, in
// every format it takes, prints text stored in the database (before the
// text rules, or a receiver's answer) through the one writer traineectl
// prints with: JSON writes no C0, DEL, C1, bidirectional formatting
// character, implicit direction mark, U+2028 or U+2029 raw and reads back
// as the stored text exactly; a table (on a terminal, narrow or wide, and
// tab-separated off one) shows it escaped, one line a row. A command given
// -o, or a format, that this test does not print fails it.
func TestOperatorOutputEscapesStoredText(t *testing.T) {
	h := apitest.HostileStored
	storetest.EachURL(t, func(t *testing.T, db string) {
		listings := seedHostile(t, db)
		got := listingCommands(newRootCmd(&env{}))
		if want := slices.Sorted(func(yield func(string) bool) {
			for k := range listings {
				if !yield(k) {
					return
				}
			}
		}); !slices.Equal(slices.Sorted(slices.Values(got)), want) {
			t.Fatalf("commands with -o %v, this test prints %v", got, want)
		}
		for name, l := range listings {
			for _, format := range outputFormats {
				switch format {
				case "json":
					out := ok(t, db, append(l.args, "-o", "json")...)
					if err := apitest.Unescaped(out, "\n", true); err != nil {
						t.Errorf("%s -o json: %v\n%s", name, err, out)
					}
					var v any
					if err := json.Unmarshal([]byte(out), &v); err != nil {
						t.Fatalf("%s -o json: %v\n%s", name, err, out)
					}
					exact := 0
					for _, s := range jsonStrings(v) {
						if s == h {
							exact++
						} else if strings.Contains(s, "pwned") {
							t.Errorf("%s -o json: %q read back, want %q", name, s, h)
						}
					}
					if exact != l.exact {
						t.Errorf("%s -o json: the stored text %d times, want %d:\n%s", name, exact, l.exact, out)
					}
				case "table":
					for _, width := range []int{0, 80, 400} {
						checkTable(t, name, db, l.args, width)
					}
				default:
					t.Errorf("-o %s is not printed by this test", format)
				}
			}
		}
	})
}

// checkTable prints a listing as a table width columns wide (0: not a
// terminal) and checks that it holds nothing raw (the implicit direction
// marks show as they are), one line a row (the header and the JSON's
// rows), and, off a terminal, each row's cells whole: the stored text
// escaped, between the cells' own tabs.
func checkTable(t *testing.T, name, db string, args []string, width int) {
	t.Helper()
	var rows []any
	must(t, json.Unmarshal([]byte(ok(t, db, append(args, "-o", "json")...)), &rows))
	out, errOut, code := traineedOn(t, db, width, args...)
	if code != 0 {
		t.Fatalf("%s on %d columns: exit %d: %s", name, width, code, errOut)
	}
	framing := "\n"
	if width == 0 {
		framing = "\n\t"
	}
	if err := apitest.Unescaped(out, framing, false); err != nil {
		t.Errorf("%s on %d columns: %v\n%s", name, width, err, out)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != len(rows)+1 || len(rows) == 0 {
		t.Errorf("%s on %d columns: %d lines for %d rows:\n%s", name, width, len(lines), len(rows), out)
	}
	if width > 0 {
		return
	}
	tabs := strings.Count(lines[0], "\t")
	for _, l := range lines[1:] {
		if n := strings.Count(l, "\t"); n != tabs {
			t.Errorf("%s: a row of %d tabs, the header %d: %q", name, n, tabs, l)
		}
		if !slices.Contains(strings.Split(l, "\t"), api.EscapeText(apitest.HostileStored)) {
			t.Errorf("%s: no cell holds the stored text escaped: %q", name, l)
		}
	}
}
