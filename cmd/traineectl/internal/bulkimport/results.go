package bulkimport

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"os"
	"slices"
	"strconv"
	"sync"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/cmd/traineectl/internal/atomicfile"
)

// Statuses of a row's record.
const (
	StatusCreated     = "created"      // created by this run
	StatusAlreadyDone = "already-done" // created by an earlier run
	StatusFailed      = "failed"       // sent and not created (or no answer and not found)
	StatusInvalid     = "invalid"      // refused by local validation: not sent
	// Statuses of apply -f's changes and refusals.
	StatusUpdated  = "updated"
	StatusRestored = "restored"
	StatusDeleted  = "deleted"
	StatusRefused  = "refused" // refused by the plan: not sent
	// StatusPending is written to the results file only: a password was
	// generated for the row and its create is about to be sent.
	StatusPending = "pending"
)

// Record is the outcome of one row: a line of the results file and an
// element of the -o json array.
type Record struct {
	Row       int    `json:"row"`
	RequestID string `json:"requestId"`
	TraineeID *int64 `json:"traineeId"`
	Email     string `json:"email"`
	Status    string `json:"status"`
	ErrorCode *int   `json:"errorCode"`
	Field     string `json:"field,omitempty"`
	Message   string `json:"message"`
	// Errors lists every problem of an invalid row or a 400 (the first is
	// ErrorCode, Field and Message).
	Errors []api.FieldError `json:"errors,omitempty"`
	// PasswordGenerated: the row had no password and one was generated; it
	// is in the results file only.
	PasswordGenerated bool `json:"passwordGenerated,omitempty"`
	// Password is the generated password, written to the results file
	// only, never to stdout, stderr or the journal.
	Password string `json:"-"`
}

// ResultsHeader is the results file's header row.
var ResultsHeader = []string{"row", "requestId", "traineeId", "email", "status", "errorCode", "message", "password"}

// CSV returns the record as a results file row.
func (r Record) CSV() []string {
	id, code := "", ""
	if r.TraineeID != nil {
		id = strconv.FormatInt(*r.TraineeID, 10)
	}
	if r.ErrorCode != nil {
		code = strconv.Itoa(*r.ErrorCode)
	}
	msg := r.Message
	if r.Field != "" {
		msg = r.Field + ": " + msg
	}
	return []string{strconv.Itoa(r.Row), r.RequestID, id, r.Email, r.Status, code, msg, r.Password}
}

// Results is the results file: a CSV, mode 0600, appended to and synced as
// outcomes arrive, never truncated (it may hold the only copy of generated
// passwords), so the last line of a row is its latest outcome.
type Results struct {
	a         *appender
	mu        sync.Mutex
	passwords map[string]string // request id -> generated password on file
}

// OpenResults opens (or creates) the results file at path. The generated
// passwords it already holds are remembered, so a row that is sent again
// is sent with the same password, and a row found created by an earlier
// attempt gets its password reported.
func OpenResults(path string) (*Results, error) {
	a, content, err := openAppender(path, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open the results file: %w", err)
	}
	r := &Results{a: a, passwords: map[string]string{}}
	if err := os.Chmod(path, 0o600); err != nil {
		a.Close()
		return nil, err
	}
	if len(bytes.TrimSpace(content)) == 0 {
		if err := r.append(ResultsHeader, true); err != nil {
			a.Close()
			return nil, err
		}
		return r, nil
	}
	cr := csv.NewReader(bytes.NewReader(content))
	cr.FieldsPerRecord = -1
	recs, err := cr.ReadAll()
	if err != nil || len(recs) == 0 || !slices.Equal(recs[0], ResultsHeader) {
		a.Close()
		return nil, fmt.Errorf("%s is not a results file of traineectl (its header is not %v): give another --results", path, ResultsHeader)
	}
	for _, rec := range recs[1:] {
		if len(rec) == len(ResultsHeader) && rec[7] != "" {
			r.passwords[rec[1]] = rec[7]
		}
	}
	return r, nil
}

// Password returns the generated password on file for a request id.
func (r *Results) Password(rid string) (string, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	pw, ok := r.passwords[rid]
	return pw, ok
}

// Pending writes, and returns once it is on disk, the line that keeps a
// generated password before the request that sets it goes out.
func (r *Results) Pending(rec Record) error {
	rec.Status = StatusPending
	if rec.Message == "" {
		rec.Message = "password generated; the create is being sent"
	}
	if err := r.append(rec.CSV(), true); err != nil {
		return err
	}
	r.mu.Lock()
	r.passwords[rec.RequestID] = rec.Password
	r.mu.Unlock()
	return nil
}

// Write appends an outcome. It does not wait for the disk (the journal is
// the record of outcomes, and passwords are on disk before their request);
// Close syncs.
func (r *Results) Write(rec Record) error { return r.append(rec.CSV(), false) }

func (r *Results) append(fields []string, durable bool) error {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	_ = w.Write(fields)
	w.Flush()
	if err := r.a.Append(b.Bytes(), durable); err != nil {
		return fmt.Errorf("results file: %w", err)
	}
	return nil
}

// Close puts the file in the input's row order and closes it. The lines
// are appended as outcomes arrive (rows run in parallel, so in the order
// they finish); Close rewrites the file sorted by row, stably (a row's
// lines keep their order, so its last line stays its latest outcome, and
// the lines of an earlier run of the same file stay before this run's),
// through a new file renamed over it: a crash leaves the old order whole,
// never a file without its passwords.
func (r *Results) Close() error {
	r.a.mu.Lock()
	failed := r.a.err
	r.a.mu.Unlock()
	if failed == nil {
		if err := r.sortByRow(); err != nil {
			r.a.Close()
			return fmt.Errorf("results file: %w", err)
		}
	}
	return r.a.Close()
}

// sortByRow writes the file's lines sorted by row into a new file beside
// it, synced, and renames it over the file (still locked by this run).
func (r *Results) sortByRow() error {
	path := r.a.f.Name()
	content, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	cr := csv.NewReader(bytes.NewReader(content))
	cr.FieldsPerRecord = -1
	recs, err := cr.ReadAll()
	if err != nil || len(recs) < 2 {
		return err
	}
	row := func(rec []string) int {
		n, err := strconv.Atoi(rec[0])
		if err != nil {
			return -1
		}
		return n
	}
	lines := recs[1:]
	if slices.IsSortedFunc(lines, func(a, b []string) int { return row(a) - row(b) }) {
		return nil
	}
	slices.SortStableFunc(lines, func(a, b []string) int { return row(a) - row(b) })
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	_ = w.WriteAll(recs)
	return atomicfile.Write(path, b.Bytes(), 0o600)
}

// passwordAlphabet: letters, digits and symbols that need no quoting in a
// CSV cell and none of = + - @, which start a formula in a spreadsheet
// (71 characters: 6.1 bits each).
const passwordAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789!#%*?^_~."

// GeneratedPasswordLength is the length of a generated password (147 bits).
const GeneratedPasswordLength = 24

// GeneratePassword returns a strong random password.
func GeneratePassword() string { return api.RandomString(GeneratedPasswordLength, passwordAlphabet) }
