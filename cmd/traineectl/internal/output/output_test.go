package output

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/olekukonko/tablewriter/pkg/twwidth"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/cmd/internal/textout"
	"github.com/traineed/traineed/cmd/traineectl/internal/iostreams"
)

func sample() []*api.Trainee {
	phone := "+447700900123"
	exp := api.Date{Year: 2026, Month: 11, Day: 1}
	tr := int64(7)
	return []*api.Trainee{
		{ID: 41, UserID: 977, Name: "Ada Park", Email: "ada@example.com", Username: "ada@example.com", PhoneNumber: &phone,
			Enabled: true, CompanyID: 3, TrainerID: &tr, CreatedByType: "ADMIN", ForcePasswordChange: true, WeightUnit: "KG",
			Authorities: []string{"TRAINEE", "USER"}},
		{ID: 1042, UserID: 978, Name: "Bartholomew Montgomery-Smythe the Third", Email: "bartholomew.montgomery-smythe@a-very-long-domain.example.com",
			Username: "b", ExpirationDate: &exp, Enabled: true, WeightUnit: "LB"},
		{ID: 7, Name: "Cy", Email: "cy@example.com", Enabled: false, WeightUnit: "KG"},
	}
}

var today = api.Date{Year: 2026, Month: 11, Day: 21}

// offset is the display column where sub starts in line.
func offset(line, sub string) int {
	i := strings.Index(line, sub)
	if i < 0 {
		return -1
	}
	return twwidth.Width(line[:i])
}

func TestTraineeTableFits80Columns(t *testing.T) {
	check := func(ts []*api.Trainee, want [][]string) []string {
		t.Helper()
		ios, out, _ := iostreams.Test("")
		ios.StdoutTTY, ios.NoColor = true, true // a terminal of unknown width: 80
		if err := Trainees(ios, Options{Format: Table}, ts, today, false, nil); err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimRight(out.String(), "\n"), "\n")
		if len(lines) != len(want) {
			t.Fatalf("%d lines:\n%s", len(lines), out)
		}
		for i, l := range lines {
			if w := twwidth.Width(l); w > 80 {
				t.Errorf("line of %d columns: %q", w, l)
			}
			if strings.HasSuffix(l, " ") {
				t.Errorf("trailing blanks: %q", l)
			}
			for _, w := range want[i] {
				if !strings.Contains(l, w) {
					t.Errorf("line %d %q lacks %q", i, l, w)
				}
			}
			// Columns line up: STATUS starts at the same column everywhere.
			if i > 0 {
				col := offset(lines[0], "STATUS")
				if o := max(offset(l, "active"), offset(l, "expired"), offset(l, "deleted")); o != col {
					t.Errorf("status at column %d, header at %d: %q", o, col, l)
				}
			}
		}
		if strings.Contains(out.String(), "\x1b[") {
			t.Error("colour with NO_COLOR")
		}
		return lines
	}
	all := sample()
	check([]*api.Trainee{all[0], all[2]}, [][]string{
		{"ID", "NAME", "EMAIL", "PHONE", "STATUS", "EXPIRES", "TRAINER"},
		{"41", "Ada Park", "ada@example.com", "+447700900123", "active", "-", "7"},
		{"7", "Cy", "cy@example.com", "-", "deleted", "-", "-"},
	})
	lines := check(all, [][]string{
		{"ID", "NAME", "EMAIL", "PHONE", "STATUS", "EXPIRES", "TRAINER"},
		{"41", "Ada Park", "+447700900123", "active", "-", "7"},
		{"1042", "Bartholomew", "bartholomew.", "expired", "01-11-2026", "-"},
		{"7", "Cy", "cy@example.com", "deleted"},
	})
	if !strings.Contains(lines[2], "Bartholomew …") && !strings.Contains(lines[2], "Bartholomew…") {
		t.Errorf("the long name was not shortened: %q", lines[2])
	}
}

// Off a terminal a table is whole values, tab-separated: nothing is cut
// to 80 columns, nothing is painted.
func TestTableOffTerminalIsWholeTSV(t *testing.T) {
	ios, out, _ := iostreams.Test("")
	if err := Trainees(ios, Options{Format: Table}, sample(), today, false, nil); err != nil {
		t.Fatal(err)
	}
	want := "ID\tNAME\tEMAIL\tPHONE\tSTATUS\tEXPIRES\tTRAINER\n" +
		"41\tAda Park\tada@example.com\t+447700900123\tactive\t-\t7\n" +
		"1042\tBartholomew Montgomery-Smythe the Third\tbartholomew.montgomery-smythe@a-very-long-domain.example.com\t-\texpired\t01-11-2026\t-\n" +
		"7\tCy\tcy@example.com\t-\tdeleted\t-\t-\n"
	if out.String() != want {
		t.Errorf("got:\n%q\nwant:\n%q", out, want)
	}
}

// On a terminal the table fits the width, which COLUMNS overrides.
func TestTableHonoursColumns(t *testing.T) {
	for _, tc := range []struct {
		width   int
		columns string
		want    int // the widest line fits this
	}{{120, "", 120}, {120, "70", 70}, {60, "200", 200}, {100, "junk", 100}} {
		ios, out, _ := iostreams.Test("")
		ios.StdoutTTY, ios.NoColor, ios.Width = true, true, tc.width
		ios.SetColumns(tc.columns)
		if err := Trainees(ios, Options{Format: Table}, sample(), today, false, nil); err != nil {
			t.Fatal(err)
		}
		widest := 0
		for _, l := range strings.Split(strings.TrimRight(out.String(), "\n"), "\n") {
			widest = max(widest, twwidth.Width(l))
		}
		if widest > tc.want {
			t.Errorf("width %d COLUMNS=%q: a line of %d columns:\n%s", tc.width, tc.columns, widest, out)
		}
		full := strings.Contains(out.String(), "bartholomew.montgomery-smythe@a-very-long-domain.example.com")
		if full != (tc.want >= 160) {
			t.Errorf("width %d COLUMNS=%q: e-mail whole = %v:\n%s", tc.width, tc.columns, full, out)
		}
	}
	ios, _, _ := iostreams.Test("")
	ios.SetColumns("50")
	if ios.TableWidth() != 0 {
		t.Errorf("COLUMNS made a pipe %d wide", ios.TableWidth())
	}
}

// Colour codes open and close each painted cell, and nothing else: no
// reset before the EXPIRES value.
func TestTableNoStrayReset(t *testing.T) {
	ios, out, _ := iostreams.Test("")
	ios.StdoutTTY, ios.Width = true, 200
	if err := Trainees(ios, Options{Format: Table}, sample(), today, false, nil); err != nil {
		t.Fatal(err)
	}
	if n, m := strings.Count(out.String(), "\x1b[0m"), strings.Count(out.String(), "\x1b[3"); n != m || n != 3 {
		t.Errorf("%d resets for %d colours: %q", n, m, out)
	}
	for _, l := range strings.Split(out.String(), "\n") {
		if strings.Contains(l, "\x1b[0m-") || strings.Contains(l, "\x1b[0m01-") {
			t.Errorf("stray reset: %q", l)
		}
	}
}

func TestTableColourOnlyOnTerminal(t *testing.T) {
	ios, out, _ := iostreams.Test("")
	ios.StdoutTTY, ios.Width = true, 200
	if err := Trainees(ios, Options{Format: Table}, sample()[:1], today, false, nil); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "\x1b[32mactive\x1b[0m") {
		t.Errorf("no colour on a terminal: %q", out)
	}
	ios, out, _ = iostreams.Test("")
	ios.StdoutTTY, ios.NoColor = true, true
	_ = Trainees(ios, Options{Format: Table}, sample()[:1], today, false, nil)
	if strings.Contains(out.String(), "\x1b[") {
		t.Errorf("colour with NO_COLOR: %q", out)
	}
}

func TestTraineeJSONYAMLCSV(t *testing.T) {
	ts := sample()[:1]
	ios, out, _ := iostreams.Test("")
	if err := Trainees(ios, Options{Format: JSON}, ts, today, true, nil); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out.String(), "{\n  \"id\": 41,\n  \"userId\": 977,\n  \"name\": \"Ada Park\",") || !strings.Contains(out.String(), `"expirationDate": null,`) {
		t.Errorf("json:\n%s", out)
	}
	out.Reset()
	_ = Trainees(ios, Options{Format: JSON}, ts, today, false, nil)
	if !strings.HasPrefix(out.String(), "[\n  {\n    \"id\": 41,") {
		t.Errorf("json array:\n%s", out)
	}
	out.Reset()
	_ = Trainees(ios, Options{Format: YAML}, ts, today, true, nil)
	want := `id: 41
userId: 977
name: Ada Park
email: ada@example.com
username: ada@example.com
phoneNumber: "+447700900123"
dateOfBirth: null
expirationDate: null
enabled: true
companyId: 3
trainerId: 7
createdByType: ADMIN
forcePasswordChange: true
weightUnit: KG
authorities:
  - TRAINEE
  - USER
lastTrained: null
`
	if out.String() != want {
		t.Errorf("yaml:\n%s\nwant:\n%s", out, want)
	}
	out.Reset()
	_ = Trainees(ios, Options{Format: YAML}, nil, today, false, nil)
	if out.String() != "[]\n" {
		t.Errorf("empty yaml list: %q", out)
	}
	out.Reset()
	_ = Trainees(ios, Options{Format: CSV}, sample(), today, false, nil)
	wantCSV := "id,name,email,phoneNumber,status,expirationDate,trainerId,dateOfBirth,weightUnit,lastTrained,enabled,userId,username,companyId,createdByType,forcePasswordChange,authorities\n" +
		"41,Ada Park,ada@example.com,+447700900123,active,,7,,KG,,true,977,ada@example.com,3,ADMIN,true,TRAINEE;USER\n" +
		"1042,Bartholomew Montgomery-Smythe the Third,bartholomew.montgomery-smythe@a-very-long-domain.example.com,,expired,01-11-2026,,,LB,,true,978,b,0,,false,\n" +
		"7,Cy,cy@example.com,,deleted,,,,KG,,false,0,,0,,false,\n"
	if out.String() != wantCSV {
		t.Errorf("csv:\n%s\nwant:\n%s", out, wantCSV)
	}
}

func TestParseFormat(t *testing.T) {
	for _, s := range []string{"table", "JSON", "yaml", "csv"} {
		if _, err := ParseFormat(s); err != nil {
			t.Error(err)
		}
	}
	if _, err := ParseFormat("xml"); err == nil {
		t.Error("xml accepted")
	}
	var b bytes.Buffer
	if err := textout.WriteJSON(&b, map[string]string{"a": "<b>"}); err != nil || b.String() != "{\n  \"a\": \"<b>\"\n}\n" {
		t.Errorf("json escapes HTML: %q", b.String())
	}
}

func TestOmit(t *testing.T) {
	v := struct {
		Timestamp int64   `json:"timestamp"`
		Name      string  `json:"name"`
		Items     []int   `json:"items"`
		Nested    any     `json:"nested"`
		Missing   *string `json:"missing"`
	}{1700000000, "M&Ms <b>", []int{1, 2}, map[string]int{"timestamp": 3}, nil}
	var b bytes.Buffer
	if err := textout.WriteJSON(&b, Omit(v, "timestamp")); err != nil {
		t.Fatal(err)
	}
	want := "{\n  \"name\": \"M&Ms <b>\",\n  \"items\": [\n    1,\n    2\n  ],\n  \"nested\": {\n    \"timestamp\": 3\n  },\n  \"missing\": null\n}\n"
	if b.String() != want {
		t.Errorf("JSON:\n%s\nwant\n%s", b.String(), want)
	}
	b.Reset()
	if err := textout.WriteYAML(&b, Omit(v, "timestamp")); err != nil {
		t.Fatal(err)
	}
	if want := "name: M&Ms <b>\nitems:\n  - 1\n  - 2\nnested:\n  timestamp: 3\nmissing: null\n"; b.String() != want {
		t.Errorf("YAML:\n%s\nwant\n%s", b.String(), want)
	}
	b.Reset()
	if err := textout.WriteJSON(&b, Omit([]int{1}, "timestamp")); err != nil || b.String() != "[\n  1\n]\n" {
		t.Errorf("not an object: %q, %v", b.String(), err)
	}
}

func TestCount(t *testing.T) {
	for n, want := range map[int]string{0: "0 deliveries", 1: "1 delivery", 2: "2 deliveries"} {
		if got := Count(n, "delivery", "deliveries"); got != want {
			t.Errorf("Count(%d) = %q", n, got)
		}
	}
}

// One timestamp format: tables and notes show the minute in the chosen
// zone (local by default), CSV keeps RFC 3339 in UTC.
func TestStampAndInstant(t *testing.T) {
	at := time.Date(2026, 11, 25, 19, 0, 26, 500, time.UTC)
	defer SetZone(nil)
	SetZone(time.UTC)
	if got := Stamp(at); got != "2026-11-25 19:00" {
		t.Errorf("Stamp in UTC = %q", got)
	}
	SetZone(time.FixedZone("CET", 3600))
	if got := Stamp(at); got != "2026-11-25 20:00" {
		t.Errorf("Stamp in CET = %q", got)
	}
	if got := Instant(at.In(time.FixedZone("CET", 3600))); got != "2026-11-25T19:00:26.0000005Z" {
		t.Errorf("Instant = %q", got)
	}
}

// The tables of automations and runs: instants as Stamp shows them
// (yyyy-MM-dd HH:mm, the documented form of an instant), the calendar day in
// a run's occurrence dd-MM-yyyy like every calendar date; CSV keeps the
// API's values.
func TestAutomationAndRunTableDates(t *testing.T) {
	SetZone(time.UTC)
	defer SetZone(nil)
	at := time.Date(2026, 11, 25, 19, 0, 26, 0, time.UTC)
	a := &api.Automation{ID: 3, Name: "x", Enabled: true, Trigger: api.AutomationTrigger{Type: "TRAINEE_EXPIRED"},
		ActionType: "DISABLE_TRAINEE", LastRunAt: &at, CreatedAt: at, UpdatedAt: at}
	if row := AutomationRow(a); row[len(row)-1] != "2026-11-25 19:00" {
		t.Errorf("automation row %q", row)
	}
	for occ, want := range map[string]string{
		"expired:20261129":     "expired:29-11-2026",
		"approaching:20270101": "approaching:01-01-2027",
		"inactive:never":       "inactive:never",
		"event:evt_20261129":   "event:evt_20261129",
		"inactive:20261331":    "inactive:20261331", // no such day: as it is
		"weird":                "weird",
	} {
		r := &api.AutomationRun{ID: 1, TraineeID: 41, FiredAt: at, Occurrence: occ, Outcome: "delivered"}
		row := RunRow(r)
		if row[2] != "2026-11-25 19:00" || row[3] != want {
			t.Errorf("run row of %q: %q, want FIRED AT 2026-11-25 19:00 and %q", occ, row, want)
		}
		if csv := RunCSVRow(r); csv[3] != "2026-11-25T19:00:26Z" || csv[4] != occ {
			t.Errorf("run CSV of %q: %q", occ, csv)
		}
	}
}
