package bulkupdate

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync"

	"github.com/traineed/traineed/api"
)

// Journal states of a trainee.
const (
	StateSent   = "sent"   // sent; no answer recorded yet
	StateDone   = "done"   // the server applied it (or had applied it)
	StateFailed = "failed" // the server refused it: it changed nothing
)

// Entry is what the journal knows of one trainee.
type Entry struct {
	State   string
	Attempt int              // the attempt its key names
	IfMatch string           // the If-Match it was sent with
	Patch   api.TraineePatch // what was sent
	Delete  bool
	Change  string
}

// journalLine is one line of the journal file (JSON Lines): a header
// line with the action, then one line per event of a trainee.
type journalLine struct {
	Action  string            `json:"action,omitempty"` // header: the action id
	Base    string            `json:"base,omitempty"`   // header: the server
	Command string            `json:"command,omitempty"`
	ID      int64             `json:"id,omitempty"`
	State   string            `json:"state,omitempty"`
	Attempt int               `json:"attempt,omitempty"`
	IfMatch string            `json:"ifMatch,omitempty"`
	Patch   *api.TraineePatch `json:"patch,omitempty"`
	Delete  bool              `json:"delete,omitempty"`
	Change  string            `json:"change,omitempty"`
	Status  int               `json:"status,omitempty"`
	Code    int               `json:"errorCode,omitempty"`
}

// Journal records, line by line and synced, what a bulk action sent and
// what came back, so that a re-run (the same --journal) never applies a
// change twice and tries again what failed. A nil *Journal records
// nothing.
type Journal struct {
	path    string
	mu      sync.Mutex
	f       *os.File
	action  string
	base    string
	entries map[int64]Entry
}

// OpenJournal opens (or creates) the journal at path and reads it.
func OpenJournal(path string) (*Journal, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open the journal: %w", err)
	}
	j := &Journal{path: path, f: f, entries: map[int64]Entry{}}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		var l journalLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			continue // a line torn by a crash: what it said was not done
		}
		j.apply(l)
	}
	if err := sc.Err(); err != nil {
		f.Close()
		return nil, fmt.Errorf("read the journal %s: %w", path, err)
	}
	return j, nil
}

func (j *Journal) apply(l journalLine) {
	if l.Action != "" {
		j.action, j.base = l.Action, l.Base
		return
	}
	e := j.entries[l.ID]
	e.State = l.State
	if l.State == StateSent {
		e = Entry{State: StateSent, Attempt: l.Attempt, IfMatch: l.IfMatch, Delete: l.Delete, Change: l.Change}
		if l.Patch != nil {
			e.Patch = *l.Patch
		}
	}
	j.entries[l.ID] = e
}

// Action is the action id and server of the journal ("" for a new one).
func (j *Journal) Action() (id, base string) { return j.action, j.base }

// Start records the action's id and server (once, in a new journal).
func (j *Journal) Start(action, base, command string) error {
	if j == nil || j.action != "" {
		return nil
	}
	j.action, j.base = action, base
	return j.write(journalLine{Action: action, Base: base, Command: command})
}

// Entry is the journal's knowledge of id.
func (j *Journal) Entry(id int64) (Entry, bool) {
	if j == nil {
		return Entry{}, false
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	e, ok := j.entries[id]
	return e, ok
}

// Sent records a send before it happens.
func (j *Journal) Sent(id int64, attempt int, ifMatch string, ch Change) error {
	p := ch.Patch
	return j.record(journalLine{ID: id, State: StateSent, Attempt: attempt, IfMatch: ifMatch, Patch: &p, Delete: ch.Delete, Change: ch.Summary})
}

// Done records that the server applied it.
func (j *Journal) Done(id int64, etag string) error {
	return j.record(journalLine{ID: id, State: StateDone, IfMatch: etag})
}

// Failed records a refusal (nothing changed).
func (j *Journal) Failed(id int64, status, code int) error {
	return j.record(journalLine{ID: id, State: StateFailed, Status: status, Code: code})
}

func (j *Journal) record(l journalLine) error {
	if j == nil {
		return nil
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	j.apply(l)
	return j.writeLocked(l)
}

func (j *Journal) write(l journalLine) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.writeLocked(l)
}

func (j *Journal) writeLocked(l journalLine) error {
	b, err := json.Marshal(l)
	if err != nil {
		return err
	}
	if _, err := j.f.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("write the journal %s: %w", j.path, err)
	}
	return j.f.Sync()
}

// Close closes the journal file.
func (j *Journal) Close() error {
	if j == nil || j.f == nil {
		return nil
	}
	err := j.f.Close()
	j.f = nil
	if errors.Is(err, os.ErrClosed) {
		return nil
	}
	return err
}
