package bulkimport

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/client"
)

// StatusUnknown is the record of a row whose outcome could not be settled
// in this run (interrupted, or the lookup failed): the journal says "sent"
// and the next run settles it.
const StatusUnknown = "unknown"

// API is what the import needs of the server.
type API interface {
	// Create sends one create with rid as its X-Request-Id.
	Create(ctx context.Context, rid string, req api.CreateRequest) (*api.Trainee, error)
	// FindByEmail returns the company's trainee with exactly this
	// (normalised) e-mail, soft-deleted ones included; nil when there is
	// none.
	FindByEmail(ctx context.Context, email string) (*api.Trainee, error)
}

// ClientAPI is the API over the Go client.
type ClientAPI struct {
	// RefuseErased sends the creates with Traineed-Refuse-Erased: a row
	// of a trainee erased from the company is refused (409 1038) and
	// skipped (StatusErased).
	RefuseErased bool
	// Lookup makes the searches (with the client's retries).
	Lookup *client.Client
	// ForRequest returns a client whose every attempt carries rid as
	// X-Request-Id.
	ForRequest func(rid string) *client.Client
}

// Create sends the create. The client retries a connection failure or a
// 5xx (1 s, then 5 s) as it does for every call; the runner settles what a
// retry leaves unclear (a 1008 after a lost answer).
func (c ClientAPI) Create(ctx context.Context, rid string, req api.CreateRequest) (*api.Trainee, error) {
	var opts []client.RequestOption
	if c.RefuseErased {
		opts = append(opts, client.RefuseErased())
	}
	return c.ForRequest(rid).CreateTrainee(ctx, req, opts...)
}

// FindByEmail searches q=<email>, status=all, and keeps the exact match.
func (c ClientAPI) FindByEmail(ctx context.Context, email string) (*api.Trainee, error) {
	ts, err := client.Collect(c.Lookup.ListTrainees(ctx, client.SearchParams{Query: email, Status: api.StatusAll, Size: 100}))
	if err != nil {
		return nil, err
	}
	for _, t := range ts {
		if api.NormalizeEmail(t.Email) == email {
			return t, nil
		}
	}
	return nil, nil
}

// Options configure a run.
type Options struct {
	API     API
	Journal *Journal
	Results *Results // nil: no results file
	// Parallel is the number of rows in flight at once (default 4); a
	// 429 from the server halves it for the rest of the run.
	Parallel int
	// ThrottleWait is the pause before a row refused with 429 is sent
	// again (default 1 s), on top of the client's Retry-After waits.
	ThrottleWait time.Duration
	// Grace is how long requests under way may still finish once ctx is
	// cancelled (default 10 s); no new row starts.
	Grace time.Duration
	// OnRecord is called, one call at a time, with each row's outcome as it
	// arrives.
	OnRecord func(Record)
	// GeneratePassword makes passwords (default GeneratePassword).
	GeneratePassword func() string
	Now              func() time.Time
}

// Summary counts the outcomes of a run.
type Summary struct {
	Rows         int // rows in the input
	Created      int // created by this run
	AlreadyDone  int // created by an earlier run (journal, or found by lookup)
	Failed       int // sent and refused, or not created for lack of an answer
	Invalid      int // refused by local validation, not sent
	Unknown      int // outcome left to the next run (interrupted, lookup failed)
	NotAttempted int // not started: the run was stopped
	Processed    int // rows that needed the server (sent or looked up)
	Answered     int // rows the server settled: created, rejected or found by a lookup
	// Throttled counts the sends refused for the key's rate limit (429)
	// and made again; Parallel is the parallelism the run ended with,
	// lower than Options.Parallel when it was throttled.
	Throttled int
	Parallel  int
	Duration  time.Duration
	// Of apply -f: rows updated, restored (with their changes) and left
	// unchanged, trainees deleted (--prune), rows refused by the plan.
	Updated, Restored, Deleted, Unchanged, Refused int
	// Erased counts the rows skipped because they name a trainee erased
	// from the company: not a failure.
	Erased int
}

// Failures is every row not created (or, for apply -f, not applied):
// failed, invalid, refused and unknown.
func (s Summary) Failures() int { return s.Failed + s.Invalid + s.Refused + s.Unknown }

// Run imports the rows: invalid rows are reported and not sent; rows the
// journal has as created are reported as already done; the others are
// sent, Parallel at a time. A row whose outcome an earlier run left unknown
// is first looked up by its e-mail. Failures never stop the run; a refused
// API key (401), a server that cannot be reached (even for a lookup), a
// server that answers a row's create and then its lookup with 5xx (a
// *ServerFailingError), or a journal that cannot be written do, and are returned as the error, the
// rows not started counted in NotAttempted. Records are returned in row
// order.
func Run(ctx context.Context, rows []Row, o Options) (Summary, []Record, error) {
	o.setDefaults()
	for i := range rows {
		if rows[i].Valid() && rows[i].GeneratePassword && o.Results == nil {
			return Summary{}, nil, errors.New("generated passwords need a results file")
		}
	}
	r := &runner{o: o, sum: Summary{Rows: len(rows), Parallel: o.Parallel}, slots: NewSlots(o.Parallel)}
	start := o.Now()

	dispatch, reqCtx, release := r.contexts(ctx)
	defer release()

	todo := r.triage(rows)
	r.work(dispatch, reqCtx, todo)
	return r.end(ctx, start, len(todo))
}

// contexts are the two contexts of a run: dispatch, which ends with ctx or
// r.stop (no request starts after), and reqCtx, which requests under way
// run in: they may finish after ctx ends, for o.Grace (an answer received
// is an outcome recorded, and a lookup avoided next time). release frees
// both.
func (r *runner) contexts(ctx context.Context) (dispatch, reqCtx context.Context, release func()) {
	reqCtx, cancelReq := context.WithCancel(context.WithoutCancel(ctx))
	stopGrace := context.AfterFunc(ctx, func() { time.AfterFunc(r.o.Grace, cancelReq) })
	dispatch, stopDispatch := context.WithCancel(ctx)
	r.stop = stopDispatch
	return dispatch, reqCtx, func() {
		stopDispatch()
		stopGrace()
		cancelReq()
	}
}

// end completes the summary of a run of todo steps begun at start and
// returns it with the records in row order and the run's error (ctx's
// when the run itself had none).
func (r *runner) end(ctx context.Context, start time.Time, todo int) (Summary, []Record, error) {
	r.sum.NotAttempted = todo - r.sum.Processed
	r.sum.Duration = r.o.Now().Sub(start)
	sortRecords(r.records)
	err := r.err
	if err == nil && ctx.Err() != nil {
		err = ctx.Err()
	}
	return r.sum, r.records, err
}

// setDefaults fills in the options left at zero.
func (o *Options) setDefaults() {
	if o.Parallel <= 0 {
		o.Parallel = 4
	}
	if o.Grace <= 0 {
		o.Grace = 10 * time.Second
	}
	if o.ThrottleWait <= 0 {
		o.ThrottleWait = time.Second
	}
	if o.GeneratePassword == nil {
		o.GeneratePassword = GeneratePassword
	}
	if o.Now == nil {
		o.Now = time.Now
	}
}

// triage records the rows that need no request (invalid, or created by an
// earlier run as the journal says) and returns the others.
func (r *runner) triage(rows []Row) []*Row {
	var todo []*Row
	for i := range rows {
		row := &rows[i]
		if !row.Valid() {
			r.finish(invalidRecord(row))
			continue
		}
		if e, ok := r.o.Journal.Entry(row.RequestID); ok && e.State == StateCreated {
			rec := r.base(row)
			rec.Status, rec.TraineeID = StatusAlreadyDone, &e.TraineeID
			rec.Message = "created by an earlier run"
			r.withPassword(&rec, row)
			r.finish(rec)
			continue
		}
		todo = append(todo, row)
	}
	return todo
}

// work processes the rows, Parallel at a time, under reqCtx; once
// dispatch ends no row starts.
func (r *runner) work(dispatch, reqCtx context.Context, todo []*Row) {
	r.pool(dispatch, reqCtx, len(todo), func(ctx context.Context, i int) (Record, error) {
		return r.process(ctx, todo[i])
	})
}

// pool runs do for 0..n-1, Parallel at a time (each holding a slot),
// under reqCtx; once dispatch ends nothing starts. Each record is
// finished as it arrives, and an error stops the run.
func (r *runner) pool(dispatch, reqCtx context.Context, n int, do func(ctx context.Context, i int) (Record, error)) {
	work := make(chan int)
	var wg sync.WaitGroup
	for range min(r.o.Parallel, max(n, 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				if dispatch.Err() != nil {
					continue // stopped: not attempted
				}
				r.mu.Lock()
				r.sum.Processed++
				r.mu.Unlock()
				r.slots.Acquire()
				rec, err := do(reqCtx, i)
				r.slots.Release()
				if err == nil && answered(rec.Status) {
					r.mu.Lock()
					r.sum.Answered++
					r.mu.Unlock()
				}
				r.finish(rec)
				if err != nil {
					r.abort(err)
				}
			}
		}()
	}
feed:
	for i := range n {
		select {
		case <-dispatch.Done():
			break feed
		case work <- i:
		}
	}
	close(work)
	wg.Wait()
}

// answered reports whether a record's status is the server's answer.
func answered(status string) bool {
	switch status {
	case StatusCreated, StatusAlreadyDone, StatusFailed, StatusErased, StatusUpdated, StatusRestored, StatusDeleted:
		return true
	}
	return false
}

type runner struct {
	o Options

	mu      sync.Mutex
	sum     Summary
	records []Record
	err     error  // the first error that stopped the run
	stop    func() // stops starting rows
	slots   *Slots // the parallelism, lowered on 429
}

// abort records the error that stops the run, and stops starting rows.
func (r *runner) abort(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err == nil {
		r.err = err
	}
	r.stop()
}

// finish counts a record, writes it to the results file and reports it.
func (r *runner) finish(rec Record) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch rec.Status {
	case StatusCreated:
		r.sum.Created++
	case StatusAlreadyDone:
		r.sum.AlreadyDone++
	case StatusFailed:
		r.sum.Failed++
	case StatusInvalid:
		r.sum.Invalid++
	case StatusUnknown:
		r.sum.Unknown++
	case StatusUpdated:
		r.sum.Updated++
	case StatusRestored:
		r.sum.Restored++
	case StatusDeleted:
		r.sum.Deleted++
	case StatusRefused:
		r.sum.Refused++
	case StatusErased:
		r.sum.Erased++
	}
	r.records = append(r.records, rec)
	if r.o.Results != nil {
		if err := r.o.Results.Write(rec); err != nil && r.err == nil {
			r.err = err
			r.stop()
		}
	}
	if r.o.OnRecord != nil {
		r.o.OnRecord(rec)
	}
}

func (r *runner) base(row *Row) Record {
	return Record{Row: row.Num, RequestID: row.RequestID, Email: row.Email, PasswordGenerated: row.GeneratePassword}
}

func invalidRecord(row *Row) Record {
	rec := Record{Row: row.Num, RequestID: row.RequestID, Email: row.Email, Status: StatusInvalid}
	first := row.Errors[0]
	if first.ErrorCode != 0 {
		code := first.ErrorCode
		rec.ErrorCode = &code
	}
	rec.Field = first.Field
	msgs := []string{first.Message}
	for _, e := range row.Errors[1:] {
		m := e.Message
		if e.Field != "" {
			m = e.Field + ": " + m
		}
		msgs = append(msgs, m)
	}
	rec.Message = strings.Join(msgs, "; ")
	rec.Errors = row.Errors
	return rec
}

// withPassword adds the generated password on file, or says it is unknown.
func (r *runner) withPassword(rec *Record, row *Row) {
	if !row.GeneratePassword {
		return
	}
	if r.o.Results != nil {
		if pw, ok := r.o.Results.Password(row.RequestID); ok {
			rec.Password = pw
			return
		}
	}
	rec.Message += "; its generated password is not in this results file (set one with `traineectl update " +
		fmt.Sprint(*rec.TraineeID) + " --password`)"
}
