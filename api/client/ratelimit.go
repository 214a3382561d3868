package client

import (
	"strconv"
	"strings"
)

// RateLimit is the rate-limit state a response announced, read from the
// RateLimit-Policy and RateLimit fields (draft-ietf-httpapi-ratelimit-
// headers): the key may make Quota requests per Window seconds, Remaining
// of them at once now, and has its whole quota again in Reset seconds.
type RateLimit struct {
	Policy    string `json:"policy"`
	Quota     int    `json:"quota"`
	Window    int    `json:"windowSeconds"`
	Remaining int    `json:"remaining"`
	Reset     int    `json:"resetSeconds"`
}

// ParseRateLimit reads the two fields of one policy ("per-key";q=100;w=5
// and "per-key";r=99;t=1); ok is false when either is absent or unreadable,
// or they name different policies.
func ParseRateLimit(policy, state string) (RateLimit, bool) {
	pname, pp, ok1 := parseSFItem(policy)
	sname, sp, ok2 := parseSFItem(state)
	if !ok1 || !ok2 || pname != sname {
		return RateLimit{}, false
	}
	rl := RateLimit{Policy: pname}
	var ok bool
	if rl.Quota, ok = pp["q"]; !ok {
		return RateLimit{}, false
	}
	rl.Window = pp["w"]
	if rl.Remaining, ok = sp["r"]; !ok {
		return RateLimit{}, false
	}
	rl.Reset = sp["t"]
	return rl, true
}

// parseSFItem reads the first item of a structured-field list: a string
// (or token) with integer parameters, such as "per-key";q=100;w=5.
func parseSFItem(s string) (string, map[string]int, bool) {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, ','); i >= 0 {
		s = s[:i]
	}
	parts := strings.Split(s, ";")
	name := strings.TrimSpace(parts[0])
	if name == "" {
		return "", nil, false
	}
	name = strings.Trim(name, `"`)
	params := map[string]int{}
	for _, p := range parts[1:] {
		k, v, ok := strings.Cut(strings.TrimSpace(p), "=")
		if !ok {
			continue
		}
		n, err := strconv.Atoi(v)
		if err != nil {
			return "", nil, false
		}
		params[k] = n
	}
	return name, params, true
}
