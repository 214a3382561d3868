package bulkupdate

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// Progress shows a run on stderr: on a terminal a bar on the last line,
// redrawn in place; everywhere each failure as it comes.
type Progress struct {
	w     io.Writer
	tty   bool
	total int

	mu      sync.Mutex
	done    int
	failed  int
	drawn   bool
	stopped bool
	quit    chan struct{}
	wg      sync.WaitGroup
}

// NewProgress returns the progress of a run over total trainees onto w.
func NewProgress(w io.Writer, tty bool, total int) *Progress {
	return &Progress{w: w, tty: tty, total: total, quit: make(chan struct{})}
}

// SetTotal sets how many trainees the run has (before Start).
func (p *Progress) SetTotal(n int) {
	p.mu.Lock()
	p.total = n
	p.mu.Unlock()
}

// Start draws the bar and keeps it drawn (on a terminal).
func (p *Progress) Start() {
	if !p.tty {
		return
	}
	p.mu.Lock()
	p.draw()
	p.mu.Unlock()
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		t := time.NewTicker(100 * time.Millisecond)
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

// Record counts an outcome and prints a failure.
func (p *Progress) Record(rec Record) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done++
	if rec.Failed() {
		p.failed++
		p.clear()
		fmt.Fprintln(p.w, FailureLine(rec))
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
	p.wg.Wait()
}

func (p *Progress) clear() {
	if p.drawn {
		io.WriteString(p.w, "\r\x1b[K")
		p.drawn = false
	}
}

func (p *Progress) draw() {
	const width = 30
	n := width
	if p.total > 0 {
		n = p.done * width / p.total
	}
	fmt.Fprintf(p.w, "\r\x1b[K[%s%s] %d/%d trainees, %d failed", strings.Repeat("#", n), strings.Repeat("-", width-n), p.done, p.total, p.failed)
	p.drawn = true
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
		return fmt.Sprintf("Dry run: %d trainees, %d would change, %d unchanged, %d failed to read; nothing was sent.",
			s.Total, s.WouldChange, s.Unchanged, s.Failed)
	}
	t := fmt.Sprintf("%d trainees: %d updated, %d unchanged, %d already done, %d failed (%s).",
		s.Total, s.Updated, s.Unchanged, s.AlreadyDone, s.Failed, s.Duration.Round(time.Millisecond))
	if s.Throttled > 0 {
		t += fmt.Sprintf(" Rate limited %d times: slowed to %d at once.", s.Throttled, s.Parallel)
	}
	return t
}
