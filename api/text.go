package api

import (
	"fmt"
	"strconv"
	"unicode/utf8"
)

// Text rules shared by every side (server, bulk import, traineectl, TUI):
// no text field or query parameter may hold a C0 control character other
// than tab (U+0000 to U+0008, U+000A to U+001F). NUL in particular cannot
// be stored by either database. Such text is a 400 with errorCode 1016
// naming the field.

// ControlChar returns the first control character of s that text may not
// hold, and whether there is one.
func ControlChar(s string) (rune, bool) {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 && c != '\t' {
			return rune(c), true
		}
	}
	return 0, false
}

// CheckText returns a *ValidationError (1016, on field) when s holds a
// control character other than tab, else nil.
func CheckText(field, s string) error {
	v := &ValidationError{}
	checkText(v, field, s)
	return v.Err()
}

// checkText records a 1016 on field when s holds a control character and
// reports whether s is clean.
func checkText(v *ValidationError, field, s string) bool {
	c, bad := ControlChar(s)
	if bad {
		v.Add(CodeControlChar, field, "%s must not contain %s", field, controlName(c))
	}
	return !bad
}

// controlName names a control character in a message: "NUL", or
// "control characters (U+001B)".
func controlName(c rune) string {
	if c == 0 {
		return "NUL"
	}
	return fmt.Sprintf("control characters (U+%04X)", c)
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
