package bulkimport

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/traineed/traineed/api"
)

// RowError is one problem of an invalid row, as --dry-run reports it.
type RowError struct {
	Row       int    `json:"row"`
	RequestID string `json:"requestId"`
	Email     string `json:"email"`
	ErrorCode *int   `json:"errorCode"`
	Field     string `json:"field,omitempty"`
	Message   string `json:"message"`
}

// Check is the report of --dry-run.
type Check struct {
	Rows    int `json:"rows"`
	Valid   int `json:"valid"`
	Invalid int `json:"invalid"`
	// AlreadyDone: valid rows the journal has as created.
	AlreadyDone int `json:"alreadyDone"`
	// ToSettle: valid rows whose outcome the journal does not know; a run
	// looks them up before sending.
	ToSettle int `json:"toSettle"`
	// ToSend: valid rows a run would send.
	ToSend int        `json:"toSend"`
	Errors []RowError `json:"errors"`
	// Erased: valid rows a run would skip, their e-mail or phone number
	// being a trainee's erased from the company (MarkErased); ErasedRows
	// lists them.
	Erased int `json:"erased"`
	// ErasedAllowed: rows of erased people a run with --allow-erased
	// creates again (counted in ToSend too).
	ErasedAllowed int         `json:"erasedAllowed,omitempty"`
	ErasedRows    []ErasedRow `json:"erasedRows,omitempty"`
}

// CheckRows reports what an import of rows would do, given the journal
// (nil for none). Nothing is sent.
func CheckRows(rows []Row, j *Journal) Check {
	c := Check{Rows: len(rows), Errors: []RowError{}}
	for i := range rows {
		r := &rows[i]
		if !r.Valid() {
			c.Invalid++
			for _, e := range r.Errors {
				re := RowError{Row: r.Num, RequestID: r.RequestID, Email: r.Email, Field: e.Field, Message: e.Message}
				if e.ErrorCode != 0 {
					code := e.ErrorCode
					re.ErrorCode = &code
				}
				c.Errors = append(c.Errors, re)
			}
			continue
		}
		c.Valid++
		var e Entry
		if j != nil {
			e, _ = j.Entry(r.RequestID)
		}
		switch {
		case e.State == StateCreated:
			c.AlreadyDone++
		case e.Uncertain:
			c.ToSettle++
		default:
			c.ToSend++
		}
	}
	return c
}

// WriteText writes the report for people: a line per problem, then the
// counts.
func (c Check) WriteText(w io.Writer) {
	for _, e := range c.Errors {
		code := 0
		if e.ErrorCode != nil {
			code = *e.ErrorCode
		}
		fmt.Fprintf(w, "row %d: invalid: %s\n", e.Row, problem(code, e.Field, e.Message))
	}
	for _, e := range c.ErasedRows {
		fmt.Fprintf(w, "! %s: row %d: %s: %s\n", api.ErasedReason(e.Field, e.ErasedAt), e.Row, api.EscapeText(e.Email), e.Outcome())
	}
	fmt.Fprintf(w, "%s: %d valid, %d invalid", rowsText(c.Rows), c.Valid, c.Invalid)
	var parts []string
	if c.AlreadyDone > 0 {
		parts = append(parts, fmt.Sprintf("%d already done", c.AlreadyDone))
	}
	if c.ToSettle > 0 {
		parts = append(parts, fmt.Sprintf("%d to look up first (outcome unknown)", c.ToSettle))
	}
	parts = append(parts, fmt.Sprintf("%d to create", c.ToSend))
	if c.Erased > 0 {
		parts = append(parts, fmt.Sprintf("%d erased, skipped", c.Erased))
	}
	if c.ErasedAllowed > 0 {
		parts = append(parts, fmt.Sprintf("%d of them erased before, created again", c.ErasedAllowed))
	}
	fmt.Fprintf(w, "; %s. Nothing was sent.\n", strings.Join(parts, ", "))
}

// Text is the summary line of a run: created, already done, failed,
// duration.
func (s Summary) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Created %d, already done %d, failed %d", s.Created, s.AlreadyDone, s.Failures())
	s.writeDetail(&b, "invalid, not sent", s.Invalid)
	s.writeRun(&b, "rows")
	return b.String()
}

// ApplyText is the summary line of apply -f: created, updated, restored,
// deleted, unchanged, failed, duration.
func (s Summary) ApplyText() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Created %d, updated %d, restored %d, deleted %d, unchanged %d, failed %d",
		s.Created, s.Updated, s.Restored, s.Deleted, s.Unchanged, s.Failures())
	s.writeDetail(&b, "refused, not sent", s.Refused)
	if s.AlreadyDone > 0 {
		fmt.Fprintf(&b, ", created by an earlier run %d", s.AlreadyDone)
	}
	s.writeRun(&b, "changes")
	return b.String()
}

// writeDetail writes what a summary line says of its failures, the n
// rows not sent (why: notSent) and those whose outcome is unknown, and
// then the rows skipped as erased.
func (s Summary) writeDetail(b *strings.Builder, notSent string, n int) {
	var detail []string
	if n > 0 {
		detail = append(detail, fmt.Sprintf("%d %s", n, notSent))
	}
	if s.Unknown > 0 {
		detail = append(detail, fmt.Sprintf("%d outcome unknown", s.Unknown))
	}
	if len(detail) > 0 {
		fmt.Fprintf(b, " (%s)", strings.Join(detail, ", "))
	}
	if s.Erased > 0 {
		fmt.Fprintf(b, ", erased (skipped) %d", s.Erased)
	}
}

// writeRun ends a summary line: the rows not attempted, the rows and the
// time, the rate (of unit per second) and the rate limit's refusals. The
// rate is of rows the server settled: rows not sent, or sent and left
// without an answer, do not count.
func (s Summary) writeRun(b *strings.Builder, unit string) {
	if s.NotAttempted > 0 {
		fmt.Fprintf(b, ", not attempted %d", s.NotAttempted)
	}
	fmt.Fprintf(b, " of %s in %s", rowsText(s.Rows), roundDuration(s.Duration))
	if s.Answered > 0 && s.Duration > 0 {
		fmt.Fprintf(b, " (%.1f %s/s)", float64(s.Answered)/s.Duration.Seconds(), unit)
	}
	if s.Throttled > 0 {
		fmt.Fprintf(b, "; the API key's rate limit refused %d sends, sent again: slowed to %d at a time", s.Throttled, s.Parallel)
	}
}

func roundDuration(d time.Duration) time.Duration {
	if d < time.Second {
		return d.Round(time.Millisecond)
	}
	return d.Round(10 * time.Millisecond)
}

// rowsText is "1 row", "2 rows".
func rowsText(n int) string {
	if n == 1 {
		return "1 row"
	}
	return fmt.Sprintf("%d rows", n)
}
