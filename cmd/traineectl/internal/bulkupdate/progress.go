package bulkupdate

import (
	"fmt"
	"io"
	"time"

	"github.com/traineed/traineed/cmd/traineectl/internal/iostreams"
)

// Progress shows a run on stderr (iostreams.Bar, counting trainees):
// each failure as it comes, and on a terminal a bar on the last line.
type Progress struct{ *iostreams.Bar }

// NewProgress returns the progress of a run over total trainees onto w.
func NewProgress(w io.Writer, tty, color bool, total int) *Progress {
	return &Progress{iostreams.NewBar(w, tty, color, "trainees", total, nil)}
}

// Record counts an outcome and prints a failure.
func (p *Progress) Record(rec Record) {
	var failure []string
	if rec.Failed() {
		failure = []string{FailureLine(rec)}
	}
	p.Bar.Record(true, failure)
}

// FailureLine is a failed record as one line: "trainee 41 (Ada Park):
// changed-meanwhile: ...".
func FailureLine(rec Record) string {
	who := fmt.Sprintf("trainee %d", rec.ID)
	if rec.Name != "" {
		who += " (" + rec.Name + ")"
	}
	msg := rec.Message
	if rec.ErrorCode != 0 {
		msg = fmt.Sprintf("%d %s", rec.ErrorCode, msg)
	}
	return who + ": " + rec.Status + ": " + msg
}

// Text is the summary line of a run.
func (s Summary) Text(dryRun bool) string {
	if dryRun {
		// One line at 80 columns: the unreadable count only when some were.
		t := fmt.Sprintf("Dry run, none sent: %s, %d to change, %d unchanged", traineeCount(s.Total), s.WouldChange, s.Unchanged)
		if s.Failed > 0 {
			t += fmt.Sprintf(", %d unreadable", s.Failed)
		}
		return t
	}
	t := fmt.Sprintf("%s: %d updated, %d unchanged, %d already done, %d failed (%s).",
		traineeCount(s.Total), s.Updated, s.Unchanged, s.AlreadyDone, s.Failed, s.Duration.Round(time.Millisecond))
	if s.Throttled > 0 {
		t += fmt.Sprintf(" Rate limited %s: slowed to %d at once.", times(s.Throttled), s.Parallel)
	}
	return t
}

// traineeCount is "1 trainee" or "N trainees".
func traineeCount(n int) string {
	if n == 1 {
		return "1 trainee"
	}
	return fmt.Sprintf("%d trainees", n)
}

// times is "once" or "N times".
func times(n int) string {
	if n == 1 {
		return "once"
	}
	return fmt.Sprintf("%d times", n)
}
