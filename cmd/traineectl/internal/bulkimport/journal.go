package bulkimport

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"
)

// States of a row in the journal.
const (
	// StateSent: the create went out (or was about to) and no outcome is
	// recorded: the process died or the connection broke. Unknown.
	StateSent = "sent"
	// StateCreated: the trainee exists (TraineeID).
	StateCreated = "created"
	// StateFailed: not created. Uncertain tells whether that is certain (a
	// 4xx) or a belief (no answer, and the lookup did not find it).
	StateFailed = "failed"
	// StateDone: a change of apply -f (Op update, restore or delete) was
	// answered with success.
	StateDone = "done"
)

// Ops of apply -f's changes in the journal; a create has none.
const (
	OpUpdate  = "update"
	OpRestore = "restore"
	OpDelete  = "delete"
)

// Entry is what the journal knows of one request id.
type Entry struct {
	RequestID string
	// Op is apply -f's change (OpUpdate, OpRestore, OpDelete), "" for a
	// create; Target names the change (op, trainee and body), so that a
	// change sent again is sent with the same key.
	Op        string
	Target    string
	Email     string
	Row       int
	State     string
	TraineeID int64
	// Uncertain: the outcome of a send is not known for sure (StateSent,
	// or a failure without an answer), so the row is settled by looking
	// its e-mail up before anything is sent again.
	Uncertain bool
	Status    int
	ErrorCode int
	Message   string
}

// journalRecord is one line of the journal (JSON Lines, append-only).
// It holds what settling needs (request id, row, e-mail, outcome) and never
// a password.
type journalRecord struct {
	Kind      string `json:"kind"` // run, sent, created, failed, done
	Op        string `json:"op,omitempty"`
	Target    string `json:"target,omitempty"`
	Time      string `json:"time"`
	RequestID string `json:"requestId,omitempty"`
	Row       int    `json:"row,omitempty"`
	Email     string `json:"email,omitempty"`
	TraineeID int64  `json:"traineeId,omitempty"`
	SettledBy string `json:"settledBy,omitempty"` // response or lookup
	Status    int    `json:"status,omitempty"`
	ErrorCode int    `json:"errorCode,omitempty"`
	Message   string `json:"message,omitempty"`
	Uncertain bool   `json:"uncertain,omitempty"`
	BaseURL   string `json:"baseUrl,omitempty"`   // run records
	CompanyID int64  `json:"companyId,omitempty"` // run records: the key's company
	Input     string `json:"input,omitempty"`     // run records
}

// Journal records, for each request id, that its create is about to be sent
// and then how it ended. Every record is on disk before Append returns, so
// after a crash at any moment the journal tells which rows are done, which
// were never sent, and which must be settled by a lookup.
type Journal struct {
	path string
	a    *appender
	now  func() time.Time

	mu       sync.Mutex
	entries  map[string]*Entry
	byTarget map[string]*Entry // apply -f's changes by Target: the latest send
	baseURL  string            // of the last run recorded
	company  int64             // of the last run recorded (0: not recorded)
	runs     bool              // a run was recorded
}

// OpenJournal opens (or creates, mode 0600) the journal at path for an
// import, locked against a second import using it at the same time.
func OpenJournal(path string) (*Journal, error) {
	a, content, err := openAppender(path, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open the journal: %w", err)
	}
	j := &Journal{path: path, a: a, now: time.Now}
	if err := j.load(content, false); err != nil {
		a.Close()
		return nil, err
	}
	return j, nil
}

// ReadJournal reads a journal without changing it (for --dry-run). A
// missing file is an empty journal.
func ReadJournal(path string) (*Journal, error) {
	j := &Journal{path: path, now: time.Now}
	content, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return j, j.load(nil, true)
	}
	if err != nil {
		return nil, fmt.Errorf("read the journal: %w", err)
	}
	return j, j.load(content, true)
}

func (j *Journal) load(content []byte, tolerateTorn bool) error {
	j.entries = map[string]*Entry{}
	j.byTarget = map[string]*Entry{}
	lines := bytes.Split(content, []byte("\n"))
	for i, line := range lines {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var r journalRecord
		if err := json.Unmarshal(line, &r); err != nil || r.Kind == "" {
			if tolerateTorn && i == len(lines)-1 {
				break // a last line without its newline: never acknowledged
			}
			return fmt.Errorf("the journal %s is damaged at line %d; it is not a journal of traineectl, or it was edited", j.path, i+1)
		}
		j.apply(r)
	}
	return nil
}

// apply updates the state with one record.
func (j *Journal) apply(r journalRecord) {
	if r.Kind == "run" {
		j.baseURL, j.runs = r.BaseURL, true
		if r.CompanyID != 0 {
			j.company = r.CompanyID
		}
		return
	}
	e := j.entries[r.RequestID]
	if e == nil {
		e = &Entry{RequestID: r.RequestID}
		j.entries[r.RequestID] = e
	}
	if r.Row != 0 {
		e.Row = r.Row
	}
	if r.Email != "" {
		e.Email = r.Email
	}
	if r.Op != "" {
		e.Op = r.Op
	}
	if r.Target != "" {
		e.Target = r.Target
		j.byTarget[r.Target] = e
	}
	if r.TraineeID != 0 {
		e.TraineeID = r.TraineeID
	}
	switch r.Kind {
	case StateSent:
		e.State, e.Uncertain = StateSent, true
		e.Status, e.ErrorCode, e.Message = 0, 0, ""
		if r.Op == "" {
			e.TraineeID = 0
		}
	case StateDone:
		e.State, e.Uncertain = StateDone, false
	case StateCreated:
		e.State, e.Uncertain, e.TraineeID = StateCreated, false, r.TraineeID
	case StateFailed:
		e.State, e.Uncertain = StateFailed, r.Uncertain
		e.Status, e.ErrorCode, e.Message = r.Status, r.ErrorCode, r.Message
	}
}

// Path is the journal's file name.
func (j *Journal) Path() string { return j.path }

// BaseURL is the server address of the last run recorded ("" for a new
// journal).
func (j *Journal) BaseURL() string { return j.baseURL }

// CompanyID is the company of the API key of the last run that recorded
// one (0 for a new journal, or one written before runs recorded it).
func (j *Journal) CompanyID() int64 { return j.company }

// Started reports whether a run was recorded: a journal that is not new.
func (j *Journal) Started() bool { return j.runs }

// Entry returns what the journal knows of a request id.
func (j *Journal) Entry(rid string) (Entry, bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	e, ok := j.entries[rid]
	if !ok {
		return Entry{}, false
	}
	return *e, true
}

// Entries returns every request id's state.
func (j *Journal) Entries() map[string]Entry {
	j.mu.Lock()
	defer j.mu.Unlock()
	out := make(map[string]Entry, len(j.entries))
	for k, e := range j.entries {
		out[k] = *e
	}
	return out
}

func (j *Journal) append(r journalRecord, durable bool) error {
	if j.a == nil {
		return errors.New("the journal is open read-only")
	}
	r.Time = j.now().Format(time.RFC3339Nano)
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	if err := j.a.Append(append(b, '\n'), durable); err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	j.mu.Lock()
	j.apply(r)
	j.mu.Unlock()
	return nil
}

// Run records the start of a run: the server, the company of the key in
// use (0: unknown) and the input.
func (j *Journal) Run(baseURL string, companyID int64, input string) error {
	return j.append(journalRecord{Kind: "run", BaseURL: baseURL, CompanyID: companyID, Input: input}, true)
}

// Sent records that a row's create is about to be sent, and returns once
// that is on disk: only then may the request go out.
func (j *Journal) Sent(rid string, row int, email string) error {
	return j.append(journalRecord{Kind: StateSent, RequestID: rid, Row: row, Email: email}, true)
}

// Created records that a row's trainee exists; settledBy is "response" or
// "lookup". It does not wait for the disk: were the record lost in a
// crash, the row would be "sent" and a lookup would settle it.
func (j *Journal) Created(rid string, row int, traineeID int64, settledBy string) error {
	return j.append(journalRecord{Kind: StateCreated, RequestID: rid, Row: row, TraineeID: traineeID, SettledBy: settledBy}, false)
}

// Failed records that a row was not created: for certain (a 4xx) or, with
// uncertain, as far as a lookup could tell. Like Created, it does not wait
// for the disk.
func (j *Journal) Failed(rid string, row, status, code int, msg string, uncertain bool) error {
	return j.append(journalRecord{Kind: StateFailed, RequestID: rid, Row: row, Status: status, ErrorCode: code, Message: msg, Uncertain: uncertain}, false)
}

// SentChange records that a change of apply -f is about to be sent with
// key as its idempotency key, and returns once that is on disk.
func (j *Journal) SentChange(op, target, key string, row int, email string, traineeID int64) error {
	return j.append(journalRecord{Kind: StateSent, Op: op, Target: target, RequestID: key, Row: row, Email: email, TraineeID: traineeID}, true)
}

// Done records that a change was answered with success.
func (j *Journal) Done(key string, row int, traineeID int64) error {
	return j.append(journalRecord{Kind: StateDone, RequestID: key, Row: row, TraineeID: traineeID}, false)
}

// PendingKey returns the key of the change target when an earlier send of
// it has no known outcome: sending it again with that key lets the server
// answer it once.
func (j *Journal) PendingKey(target string) (string, bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if e := j.byTarget[target]; e != nil && e.Uncertain {
		return e.RequestID, true
	}
	return "", false
}

// Close closes the journal and releases its lock.
func (j *Journal) Close() error {
	if j.a == nil {
		return nil
	}
	err := j.a.Close()
	j.a = nil
	return err
}
