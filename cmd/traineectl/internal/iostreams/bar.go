package iostreams

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"charm.land/bubbles/v2/progress"
	"charm.land/lipgloss/v2"
)

// Bar is the progress of a bulk command on stderr. On a terminal it keeps
// a bar on the last line (items done of the total, failed, rate), redrawn
// in place; everywhere it prints each failure as it comes, above the bar.
// One lock covers the counts and the writer, so a failure, the -v trace
// (Write) and a redraw never interleave.
type Bar struct {
	w     io.Writer
	tty   bool
	color bool
	unit  string // what is counted: "rows", "trainees"
	now   func() time.Time
	model progress.Model

	mu    sync.Mutex
	total int
	start time.Time
	done  int
	// answered counts the items the server answered: the rate is of
	// them, not of items skipped or never sent.
	answered int
	failed   int
	drawn    bool // the bar is on the screen
	stopped  bool
	quit     chan struct{}
	ticker   sync.WaitGroup
}

// NewBar returns the progress of total items (named unit) onto w; tty
// says w is a terminal, color that it may carry colour; now is the clock
// (nil: time.Now).
func NewBar(w io.Writer, tty, color bool, unit string, total int, now func() time.Time) *Bar {
	if now == nil {
		now = time.Now
	}
	b := &Bar{w: w, tty: tty, color: color, unit: unit, total: total, now: now, quit: make(chan struct{})}
	// Basic ANSI colours, which every colour terminal shows.
	b.model = progress.New(progress.WithWidth(barWidth), progress.WithoutPercentage(), progress.WithColors(lipgloss.Green))
	b.model.EmptyColor = lipgloss.BrightBlack
	return b
}

const (
	barWidth     = 30
	redrawPeriod = 100 * time.Millisecond
)

// SetTotal sets the number of items to show progress against (before
// Start).
func (b *Bar) SetTotal(n int) {
	b.mu.Lock()
	b.total = n
	b.mu.Unlock()
}

// Start starts the clock and, on a terminal, the redrawing.
func (b *Bar) Start() {
	b.mu.Lock()
	b.start = b.now()
	if b.tty {
		b.draw()
	}
	b.mu.Unlock()
	if !b.tty {
		return
	}
	b.ticker.Add(1)
	go func() {
		defer b.ticker.Done()
		t := time.NewTicker(redrawPeriod)
		defer t.Stop()
		for {
			select {
			case <-b.quit:
				return
			case <-t.C:
				b.mu.Lock()
				if !b.stopped {
					b.draw()
				}
				b.mu.Unlock()
			}
		}
	}()
}

// Record counts one item: answered says the server answered it (it
// counts toward the rate); failure, when not empty, is the item's
// problem, printed above the bar, one line each, and counted as failed.
func (b *Bar) Record(answered bool, failure []string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.done++
	if answered {
		b.answered++
	}
	if len(failure) > 0 {
		b.failed++
		b.clear()
		for _, l := range failure {
			fmt.Fprintln(b.w, l)
		}
	}
}

// Write lets other output (the -v trace) pass above the bar.
func (b *Bar) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.clear()
	return b.w.Write(p)
}

// Stop removes the bar.
func (b *Bar) Stop() {
	b.mu.Lock()
	if b.stopped {
		b.mu.Unlock()
		return
	}
	b.stopped = true
	b.clear()
	b.mu.Unlock()
	close(b.quit)
	b.ticker.Wait()
}

// clear erases the bar; it is drawn again at the next tick.
func (b *Bar) clear() {
	if b.drawn {
		io.WriteString(b.w, "\r\x1b[K")
		b.drawn = false
	}
}

func (b *Bar) draw() {
	frac := 1.0
	if b.total > 0 {
		frac = float64(b.done) / float64(b.total)
	}
	var bar string
	if b.color {
		bar = b.model.ViewAs(frac)
	} else {
		n := int(frac * barWidth)
		bar = "[" + strings.Repeat("#", n) + strings.Repeat("-", barWidth-n) + "]"
	}
	rate := 0.0
	if el := b.now().Sub(b.start).Seconds(); el > 0 {
		rate = float64(b.answered) / el
	}
	io.WriteString(b.w, "\r\x1b[K"+bar+fmt.Sprintf(" %d/%d %s, %d failed, %.1f %s/s%s", b.done, b.total, b.unit, b.failed, rate, b.unit,
		eta(b.total-b.done, rate)))
	b.drawn = true
}

// eta is ", ETA 1m20s" for left items at rate a second, to the second
// ("" before a rate is known or when nothing is left).
func eta(left int, rate float64) string {
	if left <= 0 || rate <= 0 {
		return ""
	}
	return ", ETA " + (time.Duration(float64(left) / rate * float64(time.Second))).Round(time.Second).String()
}
