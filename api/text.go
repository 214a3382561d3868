package api

import (
	"fmt"
	"strconv"
	"unicode"
	"unicode/utf8"
)

// Text rules shared by every side (server, bulk import, traineectl, TUI):
// no text field or query parameter may hold
//
//   - a C0 control character other than tab (U+0000 to U+0008, U+000A to
//     U+001F): NUL cannot be stored by either database, ESC starts a
//     terminal command;
//   - DEL (U+007F) or a C1 control character (U+0080 to U+009F): U+009B is
//     the 8-bit CSI, which starts a terminal command as ESC [ does;
//   - a bidirectional embedding, override or isolate (U+202A to U+202E,
//     U+2066 to U+2069): they reorder the text that follows when it is
//     displayed ("Bidi \u202egnp.exe" shows as "Bidi exe.png").
//
// Such text is a 400 with errorCode 1016 naming the field. The implicit
// direction marks U+200E, U+200F and U+061C are allowed in text: they only
// set the direction of the neutral characters (spaces, punctuation,
// digits) next to them, never reorder letters and open nothing that must
// be closed. A person's name, an e-mail address and a phone number refuse
// them, with every other invisible character (see invisibleChar below).
//
// Text stored before a rule keeps its text; clients show any text from the
// server through EscapeText, whatever it holds.

// unsafeAt returns the character at s[i] when a terminal could act on it
// or it reorders text when shown (a C0 control, tab included, DEL, a C1
// control, a bidirectional embedding, override or isolate) and its length
// in bytes; n is 0 for any other character. It looks at bytes only: these
// characters are U+0000-U+001F and U+007F (one byte), C2 80-C2 9F and E2 80
// AA-AE, E2 81 A6-A9 in UTF-8.
func unsafeAt(s string, i int) (r rune, n int) {
	switch c := s[i]; {
	case c < 0x20 || c == 0x7f:
		return rune(c), 1
	case c == 0xc2 && i+1 < len(s) && s[i+1] >= 0x80 && s[i+1] <= 0x9f:
		return rune(s[i+1]), 2
	case c == 0xe2 && i+2 < len(s):
		if b, d := s[i+1], s[i+2]; b == 0x80 && d >= 0xaa && d <= 0xae || b == 0x81 && d >= 0xa6 && d <= 0xa9 {
			return 0x2000 | rune(b&0x3f)<<6 | rune(d&0x3f), 3
		}
	}
	return 0, 0
}

// ControlChar returns the first character of s that text may not hold (a
// control character other than tab, DEL, or a bidirectional formatting
// character, see above), and whether there is one. It scans bytes, and
// looks closer only at the four that can start such a character.
func ControlChar(s string) (rune, bool) {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 0x20 && c < 0x7f || c == '\t' || c > 0x7f && c != 0xc2 && c != 0xe2 {
			continue
		}
		if r, n := unsafeAt(s, i); n > 0 {
			return r, true
		}
	}
	return 0, false
}

// CheckText returns a *ValidationError (1016, on field) when s holds a
// character that text may not hold, else nil.
func CheckText(field, s string) error {
	v := &ValidationError{}
	checkText(v, field, s)
	return v.Err()
}

// checkText records a 1016 on field when s holds a character that text may
// not hold and reports whether s is clean.
func checkText(v *ValidationError, field, s string) bool {
	c, bad := ControlChar(s)
	if bad {
		v.Add(CodeControlChar, field, "%s must not contain %s", field, controlName(c))
	}
	return !bad
}

// controlName names a refused character in a message: "NUL", "control
// characters (U+001B)" or "bidirectional formatting characters (U+202E)".
func controlName(c rune) string {
	switch {
	case c == 0:
		return "NUL"
	case c >= 0x2000:
		return fmt.Sprintf("bidirectional formatting characters (U+%04X)", c)
	}
	return fmt.Sprintf("control characters (U+%04X)", c)
}

// Invisible characters. A person's name, an e-mail address and a phone
// number, which people compare by eye, hold none of the characters that
// show as nothing (or, at most, as a space): the format characters
// (Unicode category Cf: zero-width space U+200B, the joiners U+200C and
// U+200D, the direction marks U+200E, U+200F and U+061C, the
// bidirectional embeddings and isolates, the byte order mark U+FEFF, the
// soft hyphen U+00AD, the word joiner U+2060, the tags U+E0000 and after,
// ...) and the line and paragraph separators (Zl U+2028, Zp U+2029).
// Otherwise "twin@alpha.example", "tw\u200bin@alpha.example" and
// "twin\ufeff@alpha.example" are three people who look the same
// everywhere. The refusal is the field's own code: 1002 for an e-mail
// address, 1006 for a phone number, 1016 for a name. The characters that
// no text may hold (ControlChar: the bidirectional embeddings, overrides
// and isolates among them) are checked first, and stay a 1016 in every
// field.
//
// One exception, for names: a zero-width joiner or non-joiner (U+200D,
// U+200C) between two letters (or combining marks) of one script that
// writes words with them (joinerScripts: the Indic scripts and the
// Arabic script, for Persian and Urdu) is part of the spelling, as in
// Devanagari "क्‍ष" or Persian "می‌خواهم". A mark of the inherited
// script (an Arabic vowel sign) belongs to the letter before it.
//
// Other text (automation, company and key names, nutrition items, query
// parameters) keeps the rule of ControlChar alone: the zero-width joiner
// builds emoji sequences (👨‍👩‍👧), tags build subdivision flags, and
// neither an automation's nor a food's name identifies a person.

// Zero-width joiner and non-joiner.
const (
	zwj  = '\u200d'
	zwnj = '\u200c'
)

// invisibleTables are the categories a name, an e-mail address or a phone
// number may not hold: Cf, Zl and Zp.
var invisibleTables = []*unicode.RangeTable{unicode.Cf, unicode.Zl, unicode.Zp}

// joinerScripts are the scripts whose words use a joiner or non-joiner
// between two of their letters.
var joinerScripts = []*unicode.RangeTable{
	unicode.Devanagari, unicode.Bengali, unicode.Gurmukhi, unicode.Gujarati, unicode.Oriya,
	unicode.Tamil, unicode.Telugu, unicode.Kannada, unicode.Malayalam, unicode.Sinhala,
	unicode.Arabic,
}

// invisibleChar returns the first format character (Cf), line separator
// (Zl) or paragraph separator (Zp) of s, and whether there is one. Every
// such character is beyond ASCII.
func invisibleChar(s string) (rune, bool) {
	for _, r := range s {
		if r >= utf8.RuneSelf && unicode.In(r, invisibleTables...) {
			return r, true
		}
	}
	return 0, false
}

// nameInvisibleChar is invisibleChar for a person's name: a joiner or a
// non-joiner between two letters of a script of joinerScripts is part of
// the name (see above).
func nameInvisibleChar(s string) (rune, bool) {
	for i, r := range s {
		if r < utf8.RuneSelf || !unicode.In(r, invisibleTables...) {
			continue
		}
		if (r == zwj || r == zwnj) && joinsLetters(s[:i], s[i+utf8.RuneLen(r):]) {
			continue
		}
		return r, true
	}
	return 0, false
}

// joinsLetters reports whether a joiner between before and after sits
// between two letters or marks of one script of joinerScripts. The
// character before it is the base of any inherited marks that end
// before.
func joinsLetters(before, after string) bool {
	next, _ := utf8.DecodeRuneInString(after)
	prev, n := utf8.DecodeLastRuneInString(before)
	for n > 0 && unicode.Is(unicode.Mn, prev) && unicode.Is(unicode.Inherited, prev) {
		before = before[:len(before)-n]
		prev, n = utf8.DecodeLastRuneInString(before)
	}
	if n == 0 || !unicode.In(prev, unicode.L, unicode.M) || !unicode.In(next, unicode.L, unicode.M) {
		return false
	}
	for _, script := range joinerScripts {
		if unicode.Is(script, prev) && unicode.Is(script, next) {
			return true
		}
	}
	return false
}

// invisibleName names a refused invisible character in a message:
// "format characters (U+200B)", "line separators (U+2028)", "paragraph
// separators (U+2029)".
func invisibleName(c rune) string {
	switch {
	case unicode.Is(unicode.Zl, c):
		return fmt.Sprintf("line separators (U+%04X)", c)
	case unicode.Is(unicode.Zp, c):
		return fmt.Sprintf("paragraph separators (U+%04X)", c)
	}
	return fmt.Sprintf("format characters (U+%04X)", c)
}

// checkNameChars records a 1016 on field when the person's name s holds
// an invisible character (nameInvisibleChar), and reports whether s is
// clean of them.
func checkNameChars(v *ValidationError, field, s string) bool {
	c, bad := nameInvisibleChar(s)
	switch {
	case !bad:
		return true
	case c == zwj || c == zwnj:
		v.Add(CodeControlChar, field, "%s must not contain %s outside a word of an Indic or Arabic script", field, invisibleName(c))
	default:
		v.Add(CodeControlChar, field, "%s must not contain %s", field, invisibleName(c))
	}
	return false
}

// checkEmailChars records a 1002 when the e-mail address s holds an
// invisible character, and reports whether s is clean of them.
func checkEmailChars(v *ValidationError, s string) bool {
	c, bad := invisibleChar(s)
	if bad {
		v.Add(CodeInvalidEmail, "email", "e-mail address must not contain %s", invisibleName(c))
	}
	return !bad
}

// checkPhoneChars records a 1006 when the phone number s holds an
// invisible character, and reports whether s is clean of them.
func checkPhoneChars(v *ValidationError, s string) bool {
	c, bad := invisibleChar(s)
	if bad {
		v.Add(CodeInvalidPhone, "phoneNumber", "phone number must not contain %s", invisibleName(c))
	}
	return !bad
}

// EscapeText returns s as a terminal may show it: every character that
// text may not hold, tab, and the line and paragraph separators U+2028 and
// U+2029 (a line break to some viewers: a row of a table would end there)
// written \u and four lower-case hexadecimal digits (ESC as \u001b, the
// 8-bit CSI as \u009b, the right-to-left override as \u202e), and every
// byte that is not UTF-8 as \x and two digits (\xff). Everything else,
// backslashes and the implicit direction marks included, is left as it is,
// and s itself is returned when nothing needs escaping. traineectl, the
// TUI and traineed's administration commands show text that comes from the
// server or the database through it (tables, CSV, messages, errors),
// whatever it holds.
func EscapeText(s string) string { return escape(s, escText) }

// EscapeFramed is EscapeText for text whose C0 control characters are its
// own framing, not data: it leaves them (and bytes that are not UTF-8)
// alone and escapes DEL, the C1 controls, the bidirectional formatting
// characters and U+2028 and U+2029 as \u and four digits. A JSON document
// (whose encoder escapes C0 characters in strings but writes DEL, C1 and
// bidirectional characters raw), a double-quoted YAML scalar, and a screen
// styled with ESC sequences of its own keep their meaning: JSON and YAML
// read \u009b back as U+009B.
func EscapeFramed(s string) string { return escape(s, escFramed) }

// EscapeDocument is EscapeFramed for a JSON document or the double-quoted
// scalars of a YAML one, which read every \u escape back as its character:
// it escapes the implicit direction marks U+200E, U+200F and U+061C too.
// Text shows them as they are (a right-to-left name needs them), but a
// document is data, which its reader gets back exactly either way.
func EscapeDocument(s string) string { return escape(s, escDocument) }

// The sets of characters escape writes as escapes.
const (
	escText     = iota // EscapeText
	escFramed          // EscapeFramed
	escDocument        // EscapeDocument
)

const lowerHex = "0123456789abcdef"

// look marks, for each set, the bytes escape must look at: for EscapeText
// the controls and every byte beyond ASCII (it may not be UTF-8), for
// EscapeFramed DEL and the two lead bytes of the characters it escapes,
// for EscapeDocument those and the lead byte of U+061C.
var look = func() (l [3][256]bool) {
	for c := range 256 {
		l[escText][c] = c < 0x20 || c >= 0x7f
		l[escFramed][c] = c == 0x7f || c == 0xc2 || c == 0xe2
		l[escDocument][c] = l[escFramed][c] || c == 0xd8
	}
	return l
}()

// shownAt is unsafeAt for escape: the characters text may not hold, and
// the separators U+2028 and U+2029 (E2 80 A8-A9), and for EscapeDocument
// the marks U+200E, U+200F (E2 80 8E-8F) and U+061C (D8 9C).
func shownAt(s string, i, set int) (r rune, n int) {
	if r, n = unsafeAt(s, i); n > 0 {
		return r, n
	}
	switch c := s[i]; {
	case c == 0xe2 && i+2 < len(s) && s[i+1] == 0x80:
		if d := s[i+2]; d == 0xa8 || d == 0xa9 || set == escDocument && (d == 0x8e || d == 0x8f) {
			return 0x2000 | rune(d&0x3f), 3
		}
	case c == 0xd8 && set == escDocument && i+1 < len(s) && s[i+1] == 0x9c:
		return 0x061c, 2
	}
	return 0, 0
}

func escape(s string, set int) string {
	look := &look[set]
	var b []byte // nil until something is escaped
	done := 0    // s[:done] is in b
	for i := 0; i < len(s); {
		c := s[i]
		if !look[c] {
			i++
			continue
		}
		r, n := shownAt(s, i, set)
		switch {
		case n == 0 && set != escText: // a lead byte of another character
			i++
			continue
		case n == 0: // beyond ASCII: escaped only when it is not UTF-8
			var size int
			if r, size = utf8.DecodeRuneInString(s[i:]); r != utf8.RuneError || size != 1 {
				i += size
				continue
			}
			b = append(append(b, s[done:i]...), '\\', 'x', lowerHex[c>>4], lowerHex[c&0xf])
			n = 1
		default:
			b = append(append(b, s[done:i]...), '\\', 'u', lowerHex[r>>12&0xf], lowerHex[r>>8&0xf], lowerHex[r>>4&0xf], lowerHex[r&0xf])
		}
		i += n
		done = i
	}
	if b == nil {
		return s
	}
	return string(append(b, s[done:]...))
}

// checkParam checks a query parameter's text: a control character is a
// 1016, bytes that are not UTF-8 a 1012. It reports whether it is clean.
func checkParam(v *ValidationError, name, s string) bool {
	if !utf8.ValidString(s) {
		v.Add(CodeInvalidParameter, name, "%s must be UTF-8 text", name)
		return false
	}
	return checkText(v, name, s)
}

// ParseID reads an id as the API writes it: a positive decimal integer in
// canonical form (digits only, no sign, no leading zero) that fits in 64
// bits. "04", "+4", " 4" and "4.0" are refused, so that one id has one
// spelling everywhere (paths, query parameters, traineectl's arguments).
func ParseID(s string) (int64, bool) {
	if s == "" || s[0] < '1' || s[0] > '9' {
		return 0, false
	}
	for i := 1; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
	}
	id, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, false
	}
	return id, true
}
