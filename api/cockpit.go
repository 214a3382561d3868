package api

import (
	"errors"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// The coach's cockpit (issue 28): the dashboard's counts, the search
// filters behind each of them, and optimistic concurrency (ETag and
// If-Match) on a trainee.

// PathStats is GET /public-api/trainees/stats.
const PathStats = "/public-api/trainees/stats"

// TraineeStats are the dashboard's counts of a company's trainees, each
// on the company's today and each equal to the total of one search
// (StatsSearches), so that a count opens its list:
//
//   - Active: live trainees with no expirationDate or one after today
//     (status=active).
//   - Expiring7, Expiring30: active trainees whose expirationDate is at
//     most 7 (30) days after today (status=active&expiresWithin=7d).
//   - Expired: live trainees whose expirationDate is today or before
//     (status=expired).
//   - Inactive14: live trainees with no tracked data for 14 days or more:
//     lastTrained at least 14 days before today, or null for a trainee
//     created at least 14 days before today (inactiveFor=14d).
//   - New7: live trainees created on one of the last 7 days, today
//     included, in the company's time zone (createdSince=7d).
//   - Deleted: soft-deleted trainees (status=deleted).
//
// Active + Expired + Deleted is every trainee of the company.
type TraineeStats struct {
	Timestamp  int64 `json:"timestamp"`
	Active     int   `json:"active"`
	Expiring7  int   `json:"expiringIn7Days"`
	Expiring30 int   `json:"expiringIn30Days"`
	Expired    int   `json:"expired"`
	Inactive14 int   `json:"inactive14Days"`
	New7       int   `json:"newThisWeek"`
	Deleted    int   `json:"deleted"`
}

// StatsQuery is the search (its query string) whose total each count of
// TraineeStats is, by the count's JSON name.
var StatsQuery = map[string]string{
	"active":           "status=active",
	"expiringIn7Days":  "status=active&expiresWithin=7d",
	"expiringIn30Days": "status=active&expiresWithin=30d",
	"expired":          "status=expired",
	"inactive14Days":   "inactiveFor=14d",
	"newThisWeek":      "createdSince=7d",
	"deleted":          "status=deleted",
}

// StatsSearches are the searches of StatsQuery, parsed for today: what the
// store counts, one condition per count.
func StatsSearches(today Date) map[string]Search {
	out := make(map[string]Search, len(StatsQuery))
	for name, q := range StatsQuery {
		v, _ := url.ParseQuery(q)
		s, err := ParseSearch(v, today)
		if err != nil {
			panic("api: StatsQuery " + name + ": " + err.Error())
		}
		out[name] = s
	}
	return out
}

// Set stores the count of the JSON name in s.
func (s *TraineeStats) Set(name string, n int) {
	switch name {
	case "active":
		s.Active = n
	case "expiringIn7Days":
		s.Expiring7 = n
	case "expiringIn30Days":
		s.Expiring30 = n
	case "expired":
		s.Expired = n
	case "inactive14Days":
		s.Inactive14 = n
	case "newThisWeek":
		s.New7 = n
	case "deleted":
		s.Deleted = n
	}
}

// MaxFilterDays bounds expiresWithin, inactiveFor and createdSince's Nd.
const MaxFilterDays = 36600

// parseDays reads a number of days, "7d" or "7", from 1 to MaxFilterDays.
func parseDays(s string) (int, bool) {
	n, err := strconv.Atoi(strings.TrimSuffix(s, "d"))
	if err != nil || n < 1 || n > MaxFilterDays || strings.HasPrefix(s, "+") {
		return 0, false
	}
	return n, true
}

// parseFilters reads the cockpit's filters of a search into s: every bad
// one is a 1012 in v.
//
//   - expiresWithin=Nd: expirationDate from today to today+N days, both
//     included (with the default status live, one that expires today is
//     among them: it is expired; status=active leaves it out).
//   - inactiveFor=Nd: lastTrained N days or more before today; never
//     trained, created N days or more before today (a newer trainee is
//     not inactive yet).
//   - createdSince=DATE (dd-MM-yyyy or yyyy-MM-dd), or Nd: created on that
//     day or later, in the company's time zone; Nd is the last N days,
//     today included (1d is today).
func parseFilters(v *ValidationError, q url.Values, s *Search) {
	days := func(name string) int {
		str := q.Get(name)
		if str == "" || !checkParam(v, name, str) {
			return 0
		}
		n, ok := parseDays(str)
		if !ok {
			v.Add(CodeInvalidParameter, name, "%s must be a number of days from 1 to %d, such as 7d", name, MaxFilterDays)
		}
		return n
	}
	s.ExpiresWithin = days("expiresWithin")
	s.InactiveFor = days("inactiveFor")
	s.TrainerID = parseTrainerParam(v, q)
	str := q.Get("createdSince")
	if str == "" || !checkParam(v, "createdSince", str) {
		return
	}
	if n, ok := parseDays(str); ok && strings.HasSuffix(str, "d") {
		s.CreatedSince = s.Today.AddDays(1 - n)
		return
	}
	d, err := ParseDate(str)
	if err != nil {
		t, terr := time.Parse(isoDateLayout, str)
		if terr != nil || len(str) != len(isoDateLayout) {
			v.Add(CodeInvalidParameter, "createdSince", "createdSince must be a date (dd-MM-yyyy or yyyy-MM-dd) or a number of days such as 7d")
			return
		}
		d = DateOf(t)
	}
	s.CreatedSince = d
}

// parseTrainerParam reads trainerId= (a positive id: the trainees of that
// trainer), nil when absent; anything else is a 1012 in v.
func parseTrainerParam(v *ValidationError, q url.Values) *int64 {
	str := q.Get("trainerId")
	if str == "" || !checkParam(v, "trainerId", str) {
		return nil
	}
	id, ok := ParseID(str)
	if !ok {
		v.Add(CodeInvalidParameter, "trainerId", "trainerId must be a trainer's id, a positive integer")
		return nil
	}
	return &id
}

// ParseStatsQuery reads the query of GET /trainees/stats: trainerId (the
// counts of one trainer's trainees), optional.
func ParseStatsQuery(q url.Values) (*int64, error) {
	v := &ValidationError{}
	id := parseTrainerParam(v, q)
	return id, v.Err()
}

// filterPrint is the part of SearchFingerprint the filters add: nothing
// when none is set, so that a cursor of a search without them is what it
// was before them.
func filterPrint(s Search) []string {
	var out []string
	if s.ExpiresWithin != 0 || s.InactiveFor != 0 || !s.CreatedSince.IsZero() {
		created := ""
		if !s.CreatedSince.IsZero() {
			created = s.CreatedSince.String()
		}
		out = []string{"filters", strconv.Itoa(s.ExpiresWithin), strconv.Itoa(s.InactiveFor), created}
	}
	if s.TrainerID != nil {
		out = append(out, "trainer", strconv.FormatInt(*s.TrainerID, 10))
	}
	return out
}

// Optimistic concurrency: every trainee has a version that every change
// of its row bumps; GET /trainees/{id} and the answers of PUT and DELETE
// carry it as a strong ETag ("7"), and PUT and DELETE accept If-Match.
const (
	HeaderETag    = "ETag"
	HeaderIfMatch = "If-Match"

	// CodePreconditionFailed: the request's If-Match names none of the
	// trainee's current ETag: it changed since it was read (412).
	CodePreconditionFailed = 1026
)

// ErrPreconditionFailed is CodePreconditionFailed.
var ErrPreconditionFailed = errors.New("the trainee changed since it was read (If-Match does not match its ETag)")

// PreconditionFailedBody is the body of the 412.
func PreconditionFailedBody() ErrorBody {
	return ErrorOf(CodePreconditionFailed, HeaderIfMatch,
		"the trainee changed since it was read: If-Match does not match its current ETag; read it again and re-apply the change")
}

// ETag is the strong entity tag of version: the number in double quotes.
func ETag(version int64) string { return `"` + strconv.FormatInt(version, 10) + `"` }

// IfMatch is a parsed If-Match header: Any for "*", else the versions it
// lists (entity tags of another form, and weak ones, which a strong
// comparison never matches, are left out).
type IfMatch struct {
	Any      bool
	Versions []int64
}

// Matches reports whether version satisfies m.
func (m *IfMatch) Matches(version int64) bool {
	if m.Any {
		return true
	}
	for _, v := range m.Versions {
		if v == version {
			return true
		}
	}
	return false
}

// ParseIfMatch reads the If-Match header values (nil and no error when
// there is none). A value that is not "*" or a list of entity tags is a
// 1012.
func ParseIfMatch(values []string) (*IfMatch, error) {
	if len(values) == 0 {
		return nil, nil
	}
	m := &IfMatch{}
	bad := Invalid(CodeInvalidParameter, HeaderIfMatch, `If-Match must be "*" or a list of entity tags such as "7"`)
	for _, value := range values {
		for part := range strings.SplitSeq(value, ",") {
			tag := strings.TrimSpace(part)
			switch {
			case tag == "*":
				m.Any = true
			case strings.HasPrefix(tag, `W/"`) && strings.HasSuffix(tag, `"`) && len(tag) >= 4:
				// weak: never matches
			case len(tag) >= 2 && tag[0] == '"' && tag[len(tag)-1] == '"' && !strings.Contains(tag[1:len(tag)-1], `"`):
				if n, ok := ParseID(tag[1 : len(tag)-1]); ok {
					m.Versions = append(m.Versions, n)
				}
			case tag == "":
			default:
				return nil, bad
			}
		}
	}
	if !m.Any && len(m.Versions) == 0 && !hasTag(values) {
		return nil, bad
	}
	return m, nil
}

// hasTag reports whether values hold anything but commas and spaces.
func hasTag(values []string) bool {
	for _, v := range values {
		if strings.Trim(v, ", \t") != "" {
			return true
		}
	}
	return false
}
