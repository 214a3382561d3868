package bulkimport

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/cmd/traineectl/internal/iostreams"
)

// FailureLines describes a record that is not a success, one line per
// problem: "row 3: invalid: 1002 email: e-mail address is not valid". A
// success gives nothing.
func FailureLines(rec Record) []string {
	switch rec.Status {
	case StatusCreated, StatusAlreadyDone, StatusPending, StatusUpdated, StatusRestored, StatusDeleted:
		return nil
	case StatusErased:
		return []string{fmt.Sprintf("! %s: row %d: %s: skipped", api.EscapeText(rec.Message), rec.Row, api.EscapeText(rec.Email))}
	}
	errs := rec.Errors
	if len(errs) == 0 {
		code := 0
		if rec.ErrorCode != nil {
			code = *rec.ErrorCode
		}
		line := fmt.Sprintf("row %d: %s: %s", rec.Row, rec.Status, problem(code, rec.Field, rec.Message))
		return []string{line}
	}
	var out []string
	for _, e := range errs {
		out = append(out, fmt.Sprintf("row %d: %s: %s", rec.Row, rec.Status, problem(e.ErrorCode, e.Field, e.Message)))
	}
	return out
}

// problem is a row's problem as the report and the progress show it: what
// the server said escaped (api.EscapeText).
func problem(code int, field, msg string) string {
	var b strings.Builder
	if code != 0 {
		fmt.Fprintf(&b, "%d ", code)
	}
	if field != "" {
		b.WriteString(field + ": ")
	}
	b.WriteString(msg)
	return api.EscapeText(b.String())
}

// Progress shows an import on stderr (iostreams.Bar, counting rows):
// each failure as it comes, and on a terminal a bar on the last line.
type Progress struct{ *iostreams.Bar }

// NewProgress returns the progress of an import of total rows onto w;
// tty says w is a terminal, color that it may carry colour.
func NewProgress(w io.Writer, tty, color bool, total int, now func() time.Time) *Progress {
	return &Progress{iostreams.NewBar(w, tty, color, "rows", total, now)}
}

// Record counts a row's outcome and prints it when it is a failure; the
// rate is of the rows the server created or refused.
func (p *Progress) Record(rec Record) {
	p.Bar.Record(answered(rec.Status) && rec.Status != StatusAlreadyDone, FailureLines(rec))
}
