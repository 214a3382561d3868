package bulkimport

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"charm.land/bubbles/v2/progress"
	"charm.land/lipgloss/v2"

	"github.com/traineed/traineed/api"
)

// FailureLines describes a record that is not a success, one line per
// problem: "row 3: invalid: 1002 email: e-mail address is not valid". A
// success gives nothing.
func FailureLines(rec Record) []string {
	switch rec.Status {
	case StatusCreated, StatusAlreadyDone, StatusPending, StatusUpdated, StatusRestored, StatusDeleted:
		return nil
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

// Progress shows an import on stderr. On a terminal it keeps a bar on the
// last line (rows done, failed, rate), redrawn in place; elsewhere it only
// prints the failures as they come.
type Progress struct {
	w     io.Writer
	tty   bool
	color bool
	total int
	now   func() time.Time
	bar   progress.Model

	mu    sync.Mutex
	start time.Time
	done  int
	// answered counts the rows the server created or refused: the rate
	// is of them, not of rows skipped or never sent.
	answered int
	failed   int
	drawn    bool // the bar is on the screen
	stopped  bool
	quit     chan struct{}
	ticker   sync.WaitGroup
}

// NewProgress returns the progress of an import of total rows onto w;
// tty says w is a terminal, color that it may carry colour.
func NewProgress(w io.Writer, tty, color bool, total int, now func() time.Time) *Progress {
	if now == nil {
		now = time.Now
	}
	p := &Progress{w: w, tty: tty, color: color, total: total, now: now, quit: make(chan struct{})}
	// Basic ANSI colours, which every colour terminal shows.
	p.bar = progress.New(progress.WithWidth(barWidth), progress.WithoutPercentage(), progress.WithColors(lipgloss.Green))
	p.bar.EmptyColor = lipgloss.BrightBlack
	return p
}

const (
	barWidth     = 30
	redrawPeriod = 100 * time.Millisecond
)

// SetTotal sets the number of rows to show progress against (before
// Start).
func (p *Progress) SetTotal(n int) {
	p.mu.Lock()
	p.total = n
	p.mu.Unlock()
}

// Start starts the clock and, on a terminal, the redrawing.
func (p *Progress) Start() {
	p.mu.Lock()
	p.start = p.now()
	if p.tty {
		p.draw()
	}
	p.mu.Unlock()
	if !p.tty {
		return
	}
	p.ticker.Add(1)
	go func() {
		defer p.ticker.Done()
		t := time.NewTicker(redrawPeriod)
		defer t.Stop()
		for {
			select {
			case <-p.quit:
				return
			case <-t.C:
				p.mu.Lock()
				if !p.stopped {
					p.draw()
				}
				p.mu.Unlock()
			}
		}
	}()
}

// Record counts a row's outcome and prints it when it is a failure.
func (p *Progress) Record(rec Record) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done++
	if answered(rec.Status) && rec.Status != StatusAlreadyDone {
		p.answered++
	}
	lines := FailureLines(rec)
	if len(lines) > 0 {
		p.failed++
		p.clear()
		for _, l := range lines {
			fmt.Fprintln(p.w, l)
		}
	}
}

// Write lets other output (the -v trace) pass above the bar.
func (p *Progress) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clear()
	return p.w.Write(b)
}

// Stop removes the bar.
func (p *Progress) Stop() {
	p.mu.Lock()
	if p.stopped {
		p.mu.Unlock()
		return
	}
	p.stopped = true
	p.clear()
	p.mu.Unlock()
	close(p.quit)
	p.ticker.Wait()
}

// clear erases the bar; it is drawn again at the next tick.
func (p *Progress) clear() {
	if p.drawn {
		io.WriteString(p.w, "\r\x1b[K")
		p.drawn = false
	}
}

func (p *Progress) draw() {
	frac := 1.0
	if p.total > 0 {
		frac = float64(p.done) / float64(p.total)
	}
	var bar string
	if p.color {
		bar = p.bar.ViewAs(frac)
	} else {
		n := int(frac * barWidth)
		bar = "[" + strings.Repeat("#", n) + strings.Repeat("-", barWidth-n) + "]"
	}
	rate := 0.0
	if el := p.now().Sub(p.start).Seconds(); el > 0 {
		rate = float64(p.answered) / el
	}
	io.WriteString(p.w, "\r\x1b[K"+bar+fmt.Sprintf(" %d/%d rows, %d failed, %.1f rows/s", p.done, p.total, p.failed, rate))
	p.drawn = true
}
