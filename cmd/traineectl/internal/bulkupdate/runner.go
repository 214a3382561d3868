package bulkupdate

import (
	"context"
	"errors"
	"sort"
	"sync"
	"time"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/client"
	"github.com/traineed/traineed/cmd/traineectl/internal/bulkimport"
)

// Statuses of a record.
const (
	StatusUpdated     = "updated"      // changed by this run
	StatusUnchanged   = "unchanged"    // nothing to do (Message says why)
	StatusWouldChange = "would-change" // a dry run's change
	StatusAlreadyDone = "already-done" // done by an earlier run of the action
	StatusFailed      = "failed"       // refused, or no answer
	StatusConflict    = "changed-meanwhile"
)

// Record is the outcome for one trainee.
type Record struct {
	ID        int64  `json:"id"`
	Name      string `json:"name,omitempty"`
	Status    string `json:"status"`
	Change    string `json:"change,omitempty"`
	ErrorCode int    `json:"errorCode,omitempty"`
	Message   string `json:"message,omitempty"`
	ETag      string `json:"etag,omitempty"`
}

// Failed reports whether the record is a failure.
func (r Record) Failed() bool { return r.Status == StatusFailed || r.Status == StatusConflict }

// API is what a run needs of the server.
type API interface {
	Read(ctx context.Context, id int64) (*api.Trainee, string, error)
	// Apply sends ch with If-Match etag and the idempotency key.
	Apply(ctx context.Context, id int64, key, etag string, ch Change) (*api.Trainee, string, error)
}

// ClientAPI is API over the Go client.
type ClientAPI struct{ C *client.Client }

func (c ClientAPI) Read(ctx context.Context, id int64) (*api.Trainee, string, error) {
	var resp client.Response
	t, err := c.C.Trainee(ctx, id, client.WithResponse(&resp))
	return t, resp.ETag, err
}

func (c ClientAPI) Apply(ctx context.Context, id int64, key, etag string, ch Change) (*api.Trainee, string, error) {
	var resp client.Response
	opts := []client.RequestOption{client.IdempotencyKey(key), client.IfMatch(etag), client.WithResponse(&resp)}
	var t *api.Trainee
	var err error
	if ch.Delete {
		t, err = c.C.DeleteTrainee(ctx, id, opts...)
	} else {
		t, err = c.C.UpdateTrainee(ctx, id, ch.Patch, opts...)
	}
	if err != nil {
		return nil, "", err
	}
	return t, resp.ETag, nil
}

// Options configure a run.
type Options struct {
	API      API
	Action   Action
	ActionID string
	Journal  *Journal // nil: none (the action id alone keeps re-runs safe)
	DryRun   bool
	Today    api.Date
	Parallel int // default 4; a 429 halves it
	// ThrottleWait is the pause before a trainee refused with 429 is sent
	// again (default 1 s).
	ThrottleWait time.Duration
	OnRecord     func(Record)
}

// Summary counts a run's outcomes.
type Summary struct {
	Total, Updated, Unchanged, WouldChange, AlreadyDone, Failed int
	Throttled, Parallel                                         int
	Duration                                                    time.Duration
}

// Run applies the action to every id, Parallel at a time, and returns the
// records in id order. A refused key (401) or a server that cannot be
// reached stops it (the error); any other failure is the trainee's record.
func Run(ctx context.Context, ids []int64, o Options) (Summary, []Record, error) {
	if o.Parallel <= 0 {
		o.Parallel = 4
	}
	if o.ThrottleWait <= 0 {
		o.ThrottleWait = time.Second
	}
	r := &runner{o: o, slots: bulkimport.NewSlots(o.Parallel), sum: Summary{Total: len(ids), Parallel: o.Parallel}}
	start := time.Now()
	work := make(chan int64)
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	var wg sync.WaitGroup
	for range min(o.Parallel, max(len(ids), 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for id := range work {
				r.slots.Acquire()
				rec, err := r.one(ctx, id)
				r.slots.Release()
				r.finish(rec)
				if err != nil {
					r.abort(err, stop)
				}
			}
		}()
	}
feed:
	for _, id := range ids {
		select {
		case <-ctx.Done():
			break feed
		case work <- id:
		}
	}
	close(work)
	wg.Wait()
	sort.Slice(r.records, func(i, j int) bool { return r.records[i].ID < r.records[j].ID })
	r.sum.Duration = time.Since(start)
	return r.sum, r.records, r.err
}

type runner struct {
	o     Options
	slots *bulkimport.Slots

	mu      sync.Mutex
	sum     Summary
	records []Record
	err     error
}

func (r *runner) abort(err error, stop func()) {
	r.mu.Lock()
	if r.err == nil {
		r.err = err
	}
	r.mu.Unlock()
	stop()
}

func (r *runner) finish(rec Record) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch rec.Status {
	case StatusUpdated:
		r.sum.Updated++
	case StatusUnchanged:
		r.sum.Unchanged++
	case StatusWouldChange:
		r.sum.WouldChange++
	case StatusAlreadyDone:
		r.sum.AlreadyDone++
	default:
		r.sum.Failed++
	}
	r.records = append(r.records, rec)
	if r.o.OnRecord != nil {
		r.o.OnRecord(rec)
	}
}

// one applies the action to one trainee. A non-nil error stops the run.
func (r *runner) one(ctx context.Context, id int64) (Record, error) {
	rec := Record{ID: id}
	e, inJournal := r.o.Journal.Entry(id)
	if inJournal && e.State == StateDone {
		rec.Status, rec.Message, rec.Change = StatusAlreadyDone, "done by an earlier run of this action (journal)", e.Change
		return rec, nil
	}
	if inJournal && e.State == StateSent && !r.o.DryRun {
		// Sent by an earlier run without an answer: the same request
		// again, which the server answers as it did (or applies now).
		rec.Change = e.Change
		return r.send(ctx, rec, e.Attempt, e.IfMatch, Change{Patch: e.Patch, Delete: e.Delete, Summary: e.Change})
	}
	t, etag, err := r.o.API.Read(ctx, id)
	if err != nil {
		return r.failed(rec, err)
	}
	rec.Name = api.EscapeText(t.Name)
	ch := r.o.Action.Plan(t, r.o.Today)
	rec.Change = ch.Summary
	switch {
	case ch.Skip != "":
		rec.Status, rec.Message = StatusUnchanged, ch.Skip
		return rec, nil
	case r.o.DryRun:
		rec.Status = StatusWouldChange
		return rec, nil
	}
	attempt := 1
	if inJournal {
		attempt = e.Attempt + 1 // the earlier try failed: it changed nothing
	}
	return r.send(ctx, rec, attempt, etag, ch)
}

// send applies ch under the attempt's key, with If-Match etag, recording
// it in the journal first; a 429 lowers the parallelism and sends again.
func (r *runner) send(ctx context.Context, rec Record, attempt int, etag string, ch Change) (Record, error) {
	key := Key(r.o.ActionID, rec.ID, attempt)
	if err := r.o.Journal.Sent(rec.ID, attempt, etag, ch); err != nil {
		return rec, err
	}
	t, newTag, err := r.o.API.Apply(ctx, rec.ID, key, etag, ch)
	for n := 0; bulkimport.RateLimited(err) && n < bulkimport.MaxThrottledSends; n++ {
		allowed := r.slots.Halve()
		r.mu.Lock()
		r.sum.Throttled++
		r.sum.Parallel = allowed
		r.mu.Unlock()
		select {
		case <-ctx.Done():
			return r.failed(rec, err)
		case <-time.After(r.o.ThrottleWait):
		}
		t, newTag, err = r.o.API.Apply(ctx, rec.ID, key, etag, ch)
	}
	if err != nil {
		var re *client.RejectedError
		if errors.As(err, &re) && re.ErrorCode == api.CodeIdempotencyMismatch {
			// This action's key was used on this trainee with another
			// change: an earlier run (without this journal) did it.
			_ = r.o.Journal.Done(rec.ID, "")
			rec.Status, rec.Message = StatusAlreadyDone, "done by an earlier run of this action (the server has its key)"
			return rec, nil
		}
		if errors.As(err, &re) {
			_ = r.o.Journal.Failed(rec.ID, re.Status, re.ErrorCode)
		}
		return r.failed(rec, err)
	}
	if err := r.o.Journal.Done(rec.ID, newTag); err != nil {
		return rec, err
	}
	if t != nil {
		rec.Name = api.EscapeText(t.Name)
	}
	rec.Status, rec.ETag = StatusUpdated, newTag
	return rec, nil
}

// failed is the record of err; a refused key, an unreachable server or an
// interruption also stop the run.
func (r *runner) failed(rec Record, err error) (Record, error) {
	rec.Status, rec.Message = StatusFailed, api.EscapeText(err.Error())
	var (
		pf   *client.PreconditionFailedError
		re   *client.RejectedError
		nf   *client.TraineeNotFoundError
		auth *client.AuthRefusedError
		ne   *client.NetworkError
	)
	switch {
	case errors.As(err, &pf):
		rec.Status, rec.ErrorCode = StatusConflict, pf.ErrorCode
		rec.Message = "changed by someone else since it was read: nothing changed; run the action again to apply it to the new version"
	case errors.As(err, &re):
		rec.ErrorCode = re.ErrorCode
		if re.Message != "" {
			rec.Message = api.EscapeText(re.Field + ": " + re.Message)
			if re.Field == "" {
				rec.Message = api.EscapeText(re.Message)
			}
		}
	case errors.As(err, &nf):
		rec.Message = "no such trainee in this company"
	case errors.As(err, &auth), errors.As(err, &ne), errors.Is(err, context.Canceled):
		return rec, err
	}
	return rec, nil
}
