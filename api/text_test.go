package api

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// refusedForTest is the rule written out rune by rune, to hold the byte
// scan of ControlChar to it.
func refusedForTest(r rune) bool {
	return r < 0x20 && r != '\t' || r >= 0x7f && r <= 0x9f || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069
}

// TestControlCharEveryRune: ControlChar refuses exactly the C0 controls
// but tab, DEL, the C1 controls and the bidirectional embeddings,
// overrides and isolates, alone and inside other text; the implicit marks
// (U+200E, U+200F, U+061C) and the neighbours of every range pass.
func TestControlCharEveryRune(t *testing.T) {
	for r := rune(0); r <= 0x3000; r++ {
		for _, s := range []string{string(r), "Ada " + string(r) + " Park", "é" + string(r)} {
			got, bad := ControlChar(s)
			if want := refusedForTest(r); bad != want || bad && got != r {
				t.Fatalf("ControlChar(%q) = %U %v, want refused %v", s, got, bad, want)
			}
		}
	}
	for _, ok := range []string{"Ada\tPark", "Zoë Ω 漢字 🏋️", "\u200e\u200f\u061c", "\u00a0\u2029\u2065\u206a\u202f", ""} {
		if r, bad := ControlChar(ok); bad {
			t.Errorf("ControlChar(%q) refused %U", ok, r)
		}
	}
	// The first refused character is the one named.
	if r, _ := ControlChar("a\u202eb\u009bc"); r != 0x202e {
		t.Errorf("first of two: %U", r)
	}
}

// TestCheckTextMessages: the message names the field and the character,
// as a control character or a bidirectional formatting character.
func TestCheckTextMessages(t *testing.T) {
	for s, want := range map[string]string{
		"a\x00":           "name must not contain NUL",
		"a\x1b[31m":       "name must not contain control characters (U+001B)",
		"x\x7f":           "name must not contain control characters (U+007F)",
		"C1 \u009b31mRed": "name must not contain control characters (U+009B)",
		"Bidi \u202egnp":  "name must not contain bidirectional formatting characters (U+202E)",
		"\u2066isolate":   "name must not contain bidirectional formatting characters (U+2066)",
	} {
		v, ok := CheckText("name", s).(*ValidationError)
		if !ok || len(v.Errors) != 1 || v.Errors[0].ErrorCode != CodeControlChar || v.Errors[0].Field != "name" || v.Errors[0].Message != want {
			t.Errorf("CheckText(%q) = %v, want 1016 %q", s, v, want)
		}
	}
	if err := CheckText("name", "Ada \u200fPark\t"); err != nil {
		t.Errorf("marks and tab refused: %v", err)
	}
}

// hostile holds every kind of character the rules refuse.
var hostile = []string{"\x00", "\x07", "\n", "\x1b[31m", "\x7f", "\u0080", "\u0085", "\u009b31m", "\u009f",
	"\u202a", "\u202b", "\u202c", "\u202d", "\u202egnp.exe", "\u2066", "\u2067", "\u2068", "\u2069"}

// TestHostileTextEverywhere: every text field and query parameter the
// shared validation reads refuses every hostile character with a 1016
// naming the field: create (server and client), the patch's text path,
// search, range and day parameters, webhook URLs, automations, ingest.
func TestHostileTextEverywhere(t *testing.T) {
	today := Date{2026, 11, 21}
	first := func(err error) FieldError {
		t.Helper()
		v, ok := err.(*ValidationError)
		if !ok || len(v.Errors) == 0 {
			t.Fatalf("%v: not a validation error", err)
		}
		return v.Errors[0]
	}
	for _, h := range hostile {
		bad := "Ada" + h + "Park"
		for _, field := range []string{"name", "email", "password", "phoneNumber", "weightUnit"} {
			body := map[string]any{"name": "Ada", "email": "ada@example.com", "password": "12345678", field: bad}
			raw, _ := json.Marshal(body)
			_, err := ParseCreate(raw, today)
			if fe := first(err); fe.ErrorCode != CodeControlChar || fe.Field != field {
				t.Errorf("ParseCreate %s=%q: %+v", field, bad, fe)
			}
			if _, err := ParseUpdate(raw, today); first(err).ErrorCode != CodeControlChar || first(err).Field != field {
				t.Errorf("ParseUpdate %s=%q: %v", field, bad, err)
			}
			if fe := first(ValidateCreate(createWith(field, bad), today)); fe.ErrorCode != CodeControlChar || fe.Field != field {
				t.Errorf("ValidateCreate %s=%q: %+v", field, bad, fe)
			}
		}
		if _, err := PatchFieldNamed("name").ParseText(bad, time.Now()); first(err).ErrorCode != CodeControlChar {
			t.Errorf("ParseText %q: %v", bad, err)
		}
		for _, name := range []string{"q", "status", "sort", "cursor"} {
			if _, err := ParseSearch(url.Values{name: {bad}}, today); first(err).ErrorCode != CodeControlChar || first(err).Field != name {
				t.Errorf("ParseSearch %s=%q: %v", name, bad, err)
			}
		}
		if _, _, err := ParseRange(url.Values{"from": {"01-11-2026" + h}}, today); first(err).Field != "from" || first(err).ErrorCode != CodeControlChar {
			t.Errorf("ParseRange from: %v", err)
		}
		if _, err := ParseDay(url.Values{"date": {h}}, today); first(err).ErrorCode != CodeControlChar {
			t.Errorf("ParseDay: %v", err)
		}
		u := "https://crm.example/in" + h
		raw, _ := json.Marshal(map[string]any{"url": u})
		if _, _, _, err := ParseWebhookCreate(raw); first(err).ErrorCode != CodeControlChar || first(err).Field != "url" {
			t.Errorf("ParseWebhookCreate %q: %v", u, err)
		}
		if fe := first(ValidateURL("url", u)); fe.ErrorCode != CodeControlChar || fe.Field != "url" || !strings.Contains(fe.Message, "must not contain") {
			t.Errorf("ValidateURL %q: %+v", u, fe)
		}
		for _, field := range []string{"name", "trigger.type", "conditions.status", "actionType", "action.url"} {
			body := automationBody(field, bad)
			_, err := ParseAutomation(body, nil)
			if fe := first(err); fe.ErrorCode != CodeControlChar || fe.Field != field {
				t.Errorf("ParseAutomation %s=%q: %+v", field, bad, fe)
			}
			if fe := first(CheckAutomationText(body)); fe.ErrorCode != CodeControlChar || fe.Field != field {
				t.Errorf("CheckAutomationText %s=%q: %+v", field, bad, fe)
			}
		}
		quoted, _ := json.Marshal(bad)
		line := fmt.Sprintf(`{"type":"nutrition","traineeId":41,"date":"01-11-2026","meal":"BREAKFAST","name":%s,"quantity":80,"unit":"g","calories":300,"protein":10,"carbs":54,"fat":5}`, quoted)
		if _, err := ParseTrackedRecord([]byte(line), today); err == nil || !strings.Contains(err.Error(), "name must not contain") {
			t.Errorf("ingest name %q: %v", bad, err)
		}
	}
}

// automationBody is a valid WEBHOOK automation body with field set to s.
func automationBody(field, s string) []byte {
	trigger := map[string]any{"type": TriggerTraineeCreated}
	conditions := map[string]any{"status": "active"}
	action := map[string]any{"url": "https://crm.example/in"}
	body := map[string]any{"name": "CRM", "trigger": trigger, "conditions": conditions, "actionType": ActionWebhook, "action": action}
	switch field {
	case "trigger.type":
		trigger["type"] = s
	case "conditions.status":
		conditions["status"] = s
	case "action.url":
		action["url"] = s
	default:
		body[field] = s
	}
	raw, _ := json.Marshal(body)
	return raw
}

// TestAutomationStoredText: an update that does not send a stored name or
// URL holding a character refused today keeps them; one that sends them is
// refused.
func TestAutomationStoredText(t *testing.T) {
	name, u := "Legacy \u202eemanenoN", "https://crm.example/in\u009b"
	// base is a fresh stored automation each time (decoding a body writes
	// through its pointers).
	base := func() *AutomationInput {
		var in AutomationInput
		if err := json.Unmarshal(automationBody("", ""), &in); err != nil {
			t.Fatal(err)
		}
		n, v := name, u
		in.Name, in.Action.URL = &n, &v
		return &in
	}
	spec, err := ParseAutomation([]byte(`{"enabled":false}`), base())
	if err != nil || spec.Name != name || spec.URL == nil || *spec.URL != u || spec.Enabled {
		t.Fatalf("update without text: %+v %v", spec, err)
	}
	if _, err := ParseAutomation(automationBody("action.url", u), base()); err == nil {
		t.Error("a refused URL sent again was accepted")
	}
	if _, err := ParseAutomation([]byte(`{"name":"`+name+`"}`), base()); err == nil {
		t.Error("a refused name sent again was accepted")
	}
}

// TestEscapeText: every refused character, tab and the line and paragraph
// separators are written \uXXXX (lower case), bytes that are not UTF-8
// \xNN, and nothing else changes.
func TestEscapeText(t *testing.T) {
	for in, want := range map[string]string{
		"":                               "",
		"Ada Park":                       "Ada Park",
		`back\slash \u0041`:              `back\slash \u0041`,
		"Zoë 漢字 \u200f":                  "Zoë 漢字 \u200f",
		"line\u2028para\u2029":           `line\u2028para\u2029`,
		"a\tb\nc\r":                      `a\u0009b\u000ac\u000d`,
		"\x1b[31mred\x1b]0;pwn\x07":      `\u001b[31mred\u001b]0;pwn\u0007`,
		"C1 \u009b31mRed\u0085\u0080":    `C1 \u009b31mRed\u0085\u0080`,
		"del\x7f":                        `del\u007f`,
		"Bidi \u202egnp.exe\u2066\u2069": `Bidi \u202egnp.exe\u2066\u2069`,
		"bad \xff\xc2 byte\x9b":          `bad \xff\xc2 byte\x9b`,
	} {
		if got := EscapeText(in); got != want {
			t.Errorf("EscapeText(%q) = %q, want %q", in, got, want)
		}
	}
	// Every rune: the escaped text holds nothing a terminal acts on.
	for r := rune(0); r <= 0x3000; r++ {
		got := EscapeText("x" + string(r) + "y")
		if _, bad := ControlChar(got); bad || strings.ContainsRune(got, '\t') {
			t.Fatalf("EscapeText(%U) = %q", r, got)
		}
		if refusedForTest(r) || r == '\t' || r == 0x2028 || r == 0x2029 {
			if want := fmt.Sprintf(`x\u%04xy`, r); got != want {
				t.Fatalf("EscapeText(%U) = %q, want %q", r, got, want)
			}
		} else if got != "x"+string(r)+"y" && utf8.ValidRune(r) && (r < 0xd800 || r > 0xdfff) {
			t.Fatalf("EscapeText(%U) changed it to %q", r, got)
		}
	}
}

// TestEscapeFramed: C0 characters (the framing's) are kept; DEL, C1 and
// bidi are escaped, and a JSON document stays the same data.
func TestEscapeFramed(t *testing.T) {
	in := "\x1b[1mbold\x1b[0m\n\u009b\x7f\u202e\u2069 ok é"
	if got, want := EscapeFramed(in), "\x1b[1mbold\x1b[0m\n\\u009b\\u007f\\u202e\\u2069 ok é"; got != want {
		t.Errorf("EscapeFramed = %q, want %q", got, want)
	}
	v := map[string]string{"name": "C1 \u009b31m \x1b DEL\x7f Bidi \u202egnp.exe \u2066x\u2069"}
	doc, _ := json.Marshal(v)
	esc := EscapeFramed(string(doc))
	var back map[string]string
	if err := json.Unmarshal([]byte(esc), &back); err != nil || back["name"] != v["name"] {
		t.Errorf("JSON %s read back as %q: %v", esc, back, err)
	}
	if s := "plain"; EscapeFramed(s) != s {
		t.Error("plain text changed")
	}
}

// TestEscapeDocument: every rune of the framed set and the implicit marks
// is escaped, C0 and every other rune kept, and a JSON document holding
// them all reads back as the same data.
func TestEscapeDocument(t *testing.T) {
	for r := rune(0); r <= 0x3000; r++ {
		in := "x" + string(r) + "y"
		framed := r >= 0x7f && r <= 0x9f || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 || r == 0x2028 || r == 0x2029
		want := in
		if framed || r == 0x200e || r == 0x200f || r == 0x061c {
			want = fmt.Sprintf(`x\u%04xy`, r)
		}
		if got := EscapeDocument(in); got != want && utf8.ValidRune(r) && (r < 0xd800 || r > 0xdfff) {
			t.Fatalf("EscapeDocument(%U) = %q, want %q", r, got, want)
		}
		if got, f := EscapeFramed(in), EscapeDocument(in) != in && !(r == 0x200e || r == 0x200f || r == 0x061c); (got != in) != f {
			t.Fatalf("EscapeFramed(%U) = %q", r, got)
		}
	}
	v := map[string]string{"name": "\u200f(2)\u200e \u061c \u2028 \u009b \x7f \u202e \x1b"}
	doc, _ := json.Marshal(v)
	esc := EscapeDocument(string(doc))
	var back map[string]string
	if err := json.Unmarshal([]byte(esc), &back); err != nil || back["name"] != v["name"] || strings.ContainsAny(esc, "\u200f\u200e\u061c\u2028\u009b\x7f\u202e\x1b") {
		t.Errorf("JSON %s read back as %q: %v", esc, back, err)
	}
	if s := "plain é 漢字"; EscapeDocument(s) != s {
		t.Error("plain text changed")
	}
}

func BenchmarkControlCharASCII(b *testing.B) {
	s := "Ada Lovelace-Park ada.lovelace@example.com +447700900123"
	for b.Loop() {
		ControlChar(s)
	}
}

func BenchmarkControlCharUnicode(b *testing.B) {
	s := "Zoë Ångström-Łukasiewicz 漢字 zoe@example.com"
	for b.Loop() {
		ControlChar(s)
	}
}
