package api

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode"
)

// runesOf lists every rune of the Unicode range tables.
func runesOf(tables ...*unicode.RangeTable) []rune {
	var out []rune
	for _, t := range tables {
		for _, r := range t.R16 {
			for c := rune(r.Lo); c <= rune(r.Hi); c += rune(r.Stride) {
				out = append(out, c)
			}
		}
		for _, r := range t.R32 {
			for c := rune(r.Lo); c <= rune(r.Hi); c += rune(r.Stride) {
				out = append(out, c)
			}
		}
	}
	return out
}

// invisibleRunes are the runes a name, an e-mail address and a phone
// number refuse: every rune of unicode.Cf, unicode.Zl and unicode.Zp.
var invisibleRunes = runesOf(unicode.Cf, unicode.Zl, unicode.Zp)

// firstProblem is the first problem of a validation error (a zero one
// when err is none).
func firstProblem(t *testing.T, err error) FieldError {
	t.Helper()
	if err == nil {
		return FieldError{}
	}
	v, ok := err.(*ValidationError)
	if !ok || len(v.Errors) == 0 {
		t.Fatalf("%v: not a validation error", err)
	}
	return v.Errors[0]
}

// TestInvisibleRunesEveryPath: every rune of unicode.Cf, unicode.Zl and
// unicode.Zp, inside the value and at its end (which trimming would
// otherwise drop), is refused in an e-mail address (1002), a phone
// number (1006) and a name (1016), by every parser of these fields:
// create and update bodies, ValidateCreate (the TUI, the store's trainer
// creation), the text check of traineectl's flags, and the trainer's
// bodies. A rune that no text may hold (the bidirectional embeddings,
// overrides and isolates, ControlChar) stays a 1016 in every field, as
// before.
func TestInvisibleRunesEveryPath(t *testing.T) {
	if len(invisibleRunes) < 150 {
		t.Fatalf("only %d runes in Cf, Zl and Zp", len(invisibleRunes))
	}
	today := Date{2026, 11, 21}
	for _, r := range invisibleRunes {
		c := string(r)
		_, textRule := ControlChar(c)
		for _, tc := range []struct {
			field string
			code  int
			bad   []string
		}{
			{"email", CodeInvalidEmail, []string{"tw" + c + "in@alpha.example", "twin" + c + "@alpha.example", "twin@alpha.example" + c, c + "twin@alpha.example", "twin@alpha" + c + ".example"}},
			{"phoneNumber", CodeInvalidPhone, []string{"+4477009" + c + "00123", "+447700900123" + c, c + "+447700900123", "+44 " + c + "7700 900123"}},
			{"name", CodeControlChar, []string{"Ada" + c + "Park", "Ada Park" + c, c + "Ada Park", "क्" + c + "ष", "می" + c + "خواهم"}},
		} {
			want := tc.code
			if textRule {
				want = CodeControlChar
			}
			for _, bad := range tc.bad {
				if tc.field == "name" && (r == '\u200c' || r == '\u200d') && !strings.Contains(bad, "Ada") {
					continue // a joiner inside a word of its script: TestNameJoiners
				}
				check := func(path string, err error) {
					t.Helper()
					fe := firstProblem(t, err)
					if fe.ErrorCode != want || fe.Field != tc.field || !strings.Contains(fe.Message, fmt.Sprintf("(U+%04X)", r)) {
						t.Fatalf("%s %s=%+q: %+v, want %d naming U+%04X", path, tc.field, bad, fe, want, r)
					}
				}
				body := map[string]any{"name": "Ada", "email": "ada@example.com", "password": "12345678", tc.field: bad}
				raw, _ := json.Marshal(body)
				_, err := ParseCreate(raw, today)
				check("ParseCreate", err)
				_, err = ParseUpdate(raw, today)
				check("ParseUpdate", err)
				check("ValidateCreate", ValidateCreate(createWith(tc.field, bad), today))
				check("CheckText", PatchFieldNamed(tc.field).CheckText(bad))
				_, err = PatchFieldNamed(tc.field).ParseText(bad, time.Now())
				check("ParseText", err)
				if tc.field == "phoneNumber" {
					continue
				}
				tr, _ := json.Marshal(map[string]any{"name": "Sam Coach", "email": "sam@acme.example", tc.field: bad})
				_, err = ParseNewTrainer(tr)
				check("ParseNewTrainer", err)
				_, err = ParseTrainerPatch(tr)
				check("ParseTrainerPatch", err)
			}
		}
	}
}

// TestNameJoiners: a zero-width joiner or non-joiner is part of a name
// between two letters (or marks) of one Indic or Arabic-script word, and
// nowhere else: not between Latin letters, not at either end, not between
// two scripts, not beside a space, a digit or an emoji.
func TestNameJoiners(t *testing.T) {
	today := Date{2026, 11, 21}
	for _, ok := range []string{
		"क्\u200dष",         // Devanagari: half form of ka before ssa
		"क्\u200cष Sharma",  // Devanagari: explicit virama
		"র\u200d্যাব",       // Bengali ya-phala
		"ਕ੍\u200dਹ",         // Gurmukhi
		"ક્\u200dષ",         // Gujarati
		"କ୍\u200dଷ",         // Oriya
		"க்\u200dஷ",         // Tamil
		"క్\u200dష",         // Telugu
		"ಕ್\u200dಷ",         // Kannada
		"ന്\u200dറ",         // Malayalam
		"ක්\u200dෂ",         // Sinhala
		"می\u200cخواهم",     // Persian
		"کتاب\u200cها",      // Persian plural
		"مَ\u200cن",         // an Arabic vowel sign (inherited script) before the non-joiner
		"Ali می\u200cخواهم", // mixed, the joiner inside the Persian word
	} {
		body, _ := json.Marshal(map[string]any{"name": ok, "email": "ada@example.com", "password": "12345678"})
		r, err := ParseCreate(body, today)
		if err != nil || r.Name != ok {
			t.Errorf("ParseCreate name %+q: %v (%+q)", ok, err, r.Name)
		}
		if _, err := ParseUpdate(body, today); err != nil {
			t.Errorf("ParseUpdate name %+q: %v", ok, err)
		}
		if err := PatchFieldNamed("name").CheckText(ok); err != nil {
			t.Errorf("CheckText name %+q: %v", ok, err)
		}
		tr, _ := json.Marshal(map[string]any{"name": ok, "email": "sam@acme.example"})
		if _, err := ParseNewTrainer(tr); err != nil {
			t.Errorf("ParseNewTrainer name %+q: %v", ok, err)
		}
	}
	for _, bad := range []string{
		"Ad\u200dam", "Ad\u200cam", // Latin
		"\u200dक्ष", "क्ष\u200d", "\u200cمی", "می\u200c", "\u200d", // an end
		"क\u200dक\u200d", "क \u200dष", "क\u200d ष", // an end of a word
		"क\u200dم", "می\u200cक", // two scripts
		"क\u200d1", "۱\u200c۲", // digits
		"👨\u200d👩\u200d👧", "Ada 👨\u200d👩", // emoji
		"क्\u200d\u200dष", "क्\u200c\u200dष", // two joiners
		"Ада\u200dм", "Ἀ\u200dδα", // scripts without joiners
	} {
		body, _ := json.Marshal(map[string]any{"name": bad, "email": "ada@example.com", "password": "12345678"})
		_, err := ParseCreate(body, today)
		if fe := firstProblem(t, err); fe.ErrorCode != CodeControlChar || fe.Field != "name" || !strings.Contains(fe.Message, "outside a word of an Indic or Arabic script") {
			t.Errorf("ParseCreate name %+q: %+v", bad, fe)
		}
		if fe := firstProblem(t, PatchFieldNamed("name").CheckText(bad)); fe.ErrorCode != CodeControlChar {
			t.Errorf("CheckText name %+q: %+v", bad, fe)
		}
	}
	// The joiners are refused in an e-mail address and a phone number
	// whatever surrounds them.
	for _, c := range []string{"\u200d", "\u200c"} {
		if fe := firstProblem(t, ValidateCreate(createWith("email", "क्"+c+"ष@alpha.example"), today)); fe.ErrorCode != CodeInvalidEmail {
			t.Errorf("e-mail with %+q: %+v", c, fe)
		}
	}
}

// TestInvisibleMessages: the message names the character and its kind.
func TestInvisibleMessages(t *testing.T) {
	today := Date{2026, 11, 21}
	for _, tc := range []struct {
		field, value, want string
	}{
		{"email", "tw\u200bin@alpha.example", "e-mail address must not contain format characters (U+200B)"},
		{"email", "twin\ufeff@alpha.example", "e-mail address must not contain format characters (U+FEFF)"},
		{"email", "twin@alpha.example\u2028", "e-mail address must not contain line separators (U+2028)"},
		{"phoneNumber", "+447700900123\u2029", "phone number must not contain paragraph separators (U+2029)"},
		{"phoneNumber", "+44\u00ad7700900123", "phone number must not contain format characters (U+00AD)"},
		{"name", "Ada\u200ePark", "name must not contain format characters (U+200E)"},
		{"name", "Ada\U000E0041", "name must not contain format characters (U+E0041)"},
		{"name", "Ad\u200dam", "name must not contain format characters (U+200D) outside a word of an Indic or Arabic script"},
		{"name", "Ada\u202ePark", "name must not contain bidirectional formatting characters (U+202E)"},
	} {
		fe := firstProblem(t, ValidateCreate(createWith(tc.field, tc.value), today))
		if fe.Message != tc.want {
			t.Errorf("%s %+q: %q, want %q", tc.field, tc.value, fe.Message, tc.want)
		}
	}
}

// TestFreeTextKeepsInvisibles: text that names no person and is no
// address keeps ControlChar's rule alone: emoji sequences (joiners),
// flags (tags), Persian and the implicit direction marks pass in an
// automation's name, a company's name and a nutrition item; the
// bidirectional embeddings are refused there as before.
func TestFreeTextKeepsInvisibles(t *testing.T) {
	today := Date{2026, 11, 21}
	family := "Family 👨\u200d👩\u200d👧"
	flag := "Scotland 🏴\U000E0067\U000E0062\U000E0073\U000E0063\U000E0074\U000E007F"
	for _, ok := range []string{family, flag, "می\u200cخواهم", "soft\u00adhyphen", "\u200fRTL\u200e", "two\u2028lines"} {
		if _, err := ParseAutomation(automationBody("name", ok), nil); err != nil {
			t.Errorf("automation name %+q: %v", ok, err)
		}
		raw, _ := json.Marshal(map[string]any{"name": ok})
		if _, err := ParseCompanyPatch(raw); err != nil {
			t.Errorf("company name %+q: %v", ok, err)
		}
		quoted, _ := json.Marshal(ok)
		line := fmt.Sprintf(`{"type":"nutrition","traineeId":41,"date":"01-11-2026","meal":"BREAKFAST","name":%s,"quantity":80,"unit":"g","calories":300,"protein":10,"carbs":54,"fat":5}`, quoted)
		if _, err := ParseTrackedRecord([]byte(line), today); err != nil {
			t.Errorf("nutrition item %+q: %v", ok, err)
		}
	}
	if fe := firstProblem(t, CheckAutomationText(automationBody("name", "Bidi \u202egnp"))); fe.ErrorCode != CodeControlChar {
		t.Errorf("automation name with U+202E: %+v", fe)
	}
	// A password is a secret, not shown: its characters are its owner's.
	if err := ValidateCreate(createWith("password", "pass\u200bword"), today); err != nil {
		t.Errorf("password with U+200B: %v", err)
	}
}
