package api

import (
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"strings"
	"unicode"
)

// MaxURLLength is the longest URL a company or the operator may give (in
// bytes): a webhook's url, an automation's action.url.
const MaxURLLength = 2048

// ValidateURL is the one rule of every URL a company or the operator
// gives traineed to send requests to: a webhook's url (POST and PUT
// /webhooks, traineed webhook add, traineectl webhooks add and update), a
// WEBHOOK automation's action.url (POST and PUT /automations, traineectl
// automations), and the receiver of traineectl events listen
// --forward-to. It returns nil or a *ValidationError of one problem on
// field, the first found, in this order:
//
//   - a character text may not hold (ControlChar): 1016, as every text;
//   - more than MaxURLLength bytes: 1012;
//   - white space anywhere, leading and trailing included: 1012. It is
//     refused, never trimmed, on every path: a URL holds no space (one in a
//     path or query is written %20), and a pasted one that ends with a
//     space is better refused than stored as something else;
//   - not an absolute http:// or https:// URL with a host, or one with a
//     fragment (#...), which is never sent: 1012;
//   - a host that is neither an IP literal nor a name of labels of 1 to 63
//     characters, at most 253 in all (a trailing dot aside), each of
//     letters, digits, underscores and hyphens (not first or last): 1012.
//     A label that is not ASCII is left to the destination policy, which
//     refuses it (1018: register its xn-- form).
//
// Where the URL may lead is the destination policy's (api/outbound's
// CheckURL, errorCode 1018): internal addresses, localhost, credentials
// in the URL (user:pass@), ports outside 1-65535, plain http when https is
// required. Every path that registers a URL checks both, this rule first.
func ValidateURL(field, raw string) error {
	if c, bad := ControlChar(raw); bad {
		return Invalid(CodeControlChar, field, "%s must not contain %s", field, controlName(c))
	}
	if len(raw) > MaxURLLength {
		return Invalid(CodeInvalidParameter, field, "%s must be at most %d characters (this one has %d)", field, MaxURLLength, len(raw))
	}
	if strings.IndexFunc(raw, unicode.IsSpace) >= 0 {
		return Invalid(CodeInvalidParameter, field, "%s must not contain white space, leading and trailing included (a space in a path or query is written %%20)", field)
	}
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // without the URL, which the caller has
		}
		return Invalid(CodeInvalidParameter, field, "%s is not a URL: %v", field, err)
	case u.Scheme != "http" && u.Scheme != "https":
		return Invalid(CodeInvalidParameter, field, "%s must be an absolute http:// or https:// URL", field)
	case u.Host == "" || u.Hostname() == "":
		return Invalid(CodeInvalidParameter, field, "%s has no host", field)
	case strings.Contains(raw, "#"):
		return Invalid(CodeInvalidParameter, field, "%s must not have a fragment (#...): it is never sent", field)
	}
	if problem := hostProblem(u); problem != "" {
		return Invalid(CodeInvalidParameter, field, "%s %s", field, problem)
	}
	return nil
}

// ValidateURLFlag is ValidateURL for a command line's flag: nil, or an
// error reading "--url must ... (1012)", as a *ValidationError reads.
func ValidateURLFlag(flag, raw string) error {
	err := ValidateURL(flag, raw)
	var v *ValidationError
	if !errors.As(err, &v) {
		return err
	}
	return fmt.Errorf("%s (%d)", v.Errors[0].Message, v.Errors[0].ErrorCode)
}

// hostProblem says what is wrong with u's host ("has ..."), "" when
// nothing is.
func hostProblem(u *url.URL) string {
	host := u.Hostname()
	if strings.HasPrefix(u.Host, "[") {
		if _, err := netip.ParseAddr(host); err != nil {
			return fmt.Sprintf("has a host [%s] that is not an IPv6 address", host)
		}
		return ""
	}
	name := strings.TrimSuffix(host, ".")
	if len(name) > 253 {
		return fmt.Sprintf("has a host name of %d characters: at most 253", len(name))
	}
	for _, label := range strings.Split(name, ".") {
		if problem := labelProblem(label); problem != "" {
			return problem
		}
	}
	return ""
}

// labelProblem says what is wrong with one label of a host name, "" when
// nothing is.
func labelProblem(label string) string {
	switch {
	case label == "":
		return "has an empty label in its host name (two dots in a row, or a leading dot)"
	case len(label) > 63:
		return fmt.Sprintf("has a host name label of %d characters: each is 1 to 63", len(label))
	case label[0] == '-' || label[len(label)-1] == '-':
		return fmt.Sprintf("has a host name label %q that begins or ends with a hyphen", label)
	}
	for i := 0; i < len(label); i++ {
		c := label[i]
		switch {
		case c >= 0x80:
			return "" // not ASCII: the destination policy's (1018)
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '-', c == '_':
		default:
			return fmt.Sprintf("has a host name label %q holding %q: a label is letters, digits, hyphens and underscores", label, c)
		}
	}
	return ""
}
