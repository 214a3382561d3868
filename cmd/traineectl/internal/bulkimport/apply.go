package bulkimport

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/client"
)

// ChangeAPI is what apply -f needs of the server beyond the import's API.
type ChangeAPI interface {
	// Trainees hands over every trainee of the company, deleted ones
	// included, a page at a time.
	Trainees(ctx context.Context, fn func([]*api.Trainee) error) error
	// Update sends a change with key as its idempotency key; before is
	// the trainee as the plan read it.
	Update(ctx context.Context, key string, id int64, p api.TraineePatch, before *api.Trainee) (*api.Trainee, error)
	// Delete soft-deletes a trainee with key as its idempotency key.
	Delete(ctx context.Context, key string, id int64, before *api.Trainee) (*api.Trainee, error)
}

// Trainees reads the company's trainees: a search with status=all, page
// after page by its cursor (pages of 100, the most the server gives).
func (c ClientAPI) Trainees(ctx context.Context, fn func([]*api.Trainee) error) error {
	p := client.SearchParams{Status: api.StatusAll, Size: api.MaxPageSize}
	var resp client.Response
	return client.ByPage(c.Lookup.ListTrainees(ctx, p, client.WithResponse(&resp)), &resp, fn)
}

// Update reads the trainee with its ETag, checks that the fields the
// change sets still have the values the plan read (before), and sends the
// change with If-Match: that ETag, and with key as its Idempotency-Key (a
// change sent again with its key gets the first answer and changes nothing
// again). A trainee changed meanwhile is a *ChangedError, or the server's
// 412 (*client.PreconditionFailedError): nothing is changed.
func (c ClientAPI) Update(ctx context.Context, key string, id int64, p api.TraineePatch, before *api.Trainee) (*api.Trainee, error) {
	cl := c.ForRequest(key)
	var read client.Response
	cur, err := cl.Trainee(ctx, id, client.WithResponse(&read))
	if err != nil {
		return nil, err
	}
	if fields := changedSince(before, cur, &p); len(fields) > 0 {
		return nil, &ChangedError{ID: id, Fields: fields}
	}
	return cl.UpdateTrainee(ctx, id, p, client.IdempotencyKey(key), client.IfMatch(read.ETag))
}

// Delete is Update's soft delete: a trainee already deleted is left as it
// is; one changed since the plan's read is a *ChangedError.
func (c ClientAPI) Delete(ctx context.Context, key string, id int64, before *api.Trainee) (*api.Trainee, error) {
	cl := c.ForRequest(key)
	var read client.Response
	cur, err := cl.Trainee(ctx, id, client.WithResponse(&read))
	if err != nil {
		return nil, err
	}
	if !cur.Enabled {
		return cur, nil
	}
	if fields := api.ChangedFields(before, cur); before != nil && len(fields) > 0 {
		return nil, &ChangedError{ID: id, Fields: fields}
	}
	return cl.DeleteTrainee(ctx, id, client.IdempotencyKey(key), client.IfMatch(read.ETag))
}

// changedSince lists the fields p sets whose value in cur is not the one
// the plan read in before.
func changedSince(before, cur *api.Trainee, p *api.TraineePatch) []string {
	if before == nil {
		return nil
	}
	var out []string
	for _, name := range p.Names() {
		if f := api.PatchFieldNamed(name); !f.WriteOnly && f.Of(before) != f.Of(cur) {
			out = append(out, name)
		}
	}
	return out
}

// ChangedError: the trainee changed since the plan read it (someone else
// wrote it meanwhile); nothing was sent. The next run plans from its new
// state.
type ChangedError struct {
	ID     int64
	Fields []string
}

func (e *ChangedError) Error() string {
	return fmt.Sprintf("trainee %d changed since it was read (%s): not changed; run apply again", e.ID, strings.Join(e.Fields, ", "))
}

// ReadCompany reads every trainee of the company into an index; progress,
// when set, is called with the number read so far after each page.
func ReadCompany(ctx context.Context, c ChangeAPI, progress func(n int)) (*Index, error) {
	x := NewIndex()
	err := c.Trainees(ctx, func(ts []*api.Trainee) error {
		x.Add(ts)
		if progress != nil {
			progress(x.Len())
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return x, nil
}

// ApplyOptions configure apply -f's run: those of an import (creates go
// through it, with its journal, results file, parallelism and 429
// back-off) and the server's changes.
type ApplyOptions struct {
	Options
	Changes ChangeAPI
	// RunID makes this run's idempotency keys its own: a change is sent
	// again with an earlier run's key only while that run left its outcome
	// unknown (the journal says so).
	RunID string
}

// Apply carries out a plan: refused rows are reported and not sent, the
// other steps are sent Parallel at a time (the deletes first). Like Run,
// failures never stop it; a refused key, an unreachable server or a
// journal that cannot be written do. Records are returned in row order
// (deletes, which have no row, first).
func Apply(ctx context.Context, plan *Plan, o ApplyOptions) (Summary, []Record, error) {
	o.setDefaults()
	if o.RunID == "" {
		o.RunID = api.NewRequestID()
	}
	r := &runner{o: o.Options, sum: Summary{Rows: plan.Rows, Parallel: o.Parallel, Unchanged: plan.Unchanged}, slots: NewSlots(o.Parallel)}
	start := o.Now()
	dispatch, reqCtx, release := r.contexts(ctx)
	defer release()

	var todo []*Step
	for i := range plan.Steps {
		s := &plan.Steps[i]
		if s.Action == ActionRefused {
			r.finish(refusedRecord(s))
			continue
		}
		if s.Action == ActionErased {
			rec := erasedRecord(s.Row, "", s.Email, s.Field, *s.ErasedAt)
			if s.row != nil {
				rec.RequestID = s.row.RequestID
			}
			r.finish(rec)
			continue
		}
		todo = append(todo, s)
	}
	r.pool(dispatch, reqCtx, len(todo), func(ctx context.Context, i int) (Record, error) {
		s := todo[i]
		if s.Action == ActionCreate {
			return r.process(ctx, s.row)
		}
		return r.change(ctx, s, o)
	})
	return r.end(ctx, start, len(todo))
}

// refusedRecord is the record of a row the plan refused.
func refusedRecord(s *Step) Record {
	rec := Record{Row: s.Row, TraineeID: s.TraineeID, Email: s.Email, Status: StatusRefused,
		ErrorCode: s.ErrorCode, Field: s.Field, Message: s.Reason}
	if s.row != nil {
		rec.RequestID = s.row.RequestID
		rec.Errors = s.row.Errors
	}
	return rec
}

// hashHex is the SHA-256 of s in hexadecimal.
func hashHex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// changeOp is the journal's op of a step, and the record's status when it
// succeeds.
func changeOp(action string) (op, status string) {
	switch action {
	case ActionRestore:
		return OpRestore, StatusRestored
	case ActionDelete:
		return OpDelete, StatusDeleted
	}
	return OpUpdate, StatusUpdated
}

// changeKey is the idempotency key of a change: the key of an earlier
// send of the same change (same op, trainee and body) whose outcome is
// unknown, else a new one of this run.
func (r *runner) changeKey(target, runID string) string {
	if key, ok := r.o.Journal.PendingKey(target); ok {
		return key
	}
	return "apl-" + hashHex(runID + "|" + target)[:32]
}

// change sends an update, a restore or a delete through the journal. A
// non-nil error stops the run.
func (r *runner) change(ctx context.Context, s *Step, o ApplyOptions) (Record, error) {
	op, okStatus := changeOp(s.Action)
	id := *s.TraineeID
	body, _ := json.Marshal(s.patch)
	target := fmt.Sprintf("%s:%d:%s", op, id, hashHex(string(body))[:16])
	key := r.changeKey(target, o.RunID)
	rec := Record{Row: s.Row, RequestID: key, TraineeID: &id, Email: s.Email}
	if err := r.o.Journal.SentChange(op, target, key, s.Row, s.Email, id); err != nil {
		return rec, err
	}
	err := r.throttled(ctx, func() (err error) {
		if op == OpDelete {
			_, err = o.Changes.Delete(ctx, key, id, s.before)
		} else {
			_, err = o.Changes.Update(ctx, key, id, s.patch, s.before)
		}
		return err
	})
	if err != nil {
		return r.changeFailed(ctx, rec, err)
	}
	if err := r.o.Journal.Done(key, s.Row, id); err != nil {
		return rec, err
	}
	rec.Status = okStatus
	if names := s.patch.Names(); len(names) > 0 {
		rec.Message = strings.Join(names, ", ")
	}
	return rec, nil
}

// changeFailed settles a change that returned err: a refused key stops
// the run, a rejection (or a trainee gone) is the row's failure, and
// without an answer the outcome is unknown: the next run reads the
// trainee afresh and sends what is still missing, with the same key.
func (r *runner) changeFailed(ctx context.Context, rec Record, err error) (Record, error) {
	var (
		rejected *client.RejectedError
		auth     *client.AuthRefusedError
		gone     *client.TraineeNotFoundError
		network  *client.NetworkError
		changed  *ChangedError
	)
	j := r.o.Journal
	switch {
	case errors.As(err, &changed):
		code := api.CodePreconditionFailed
		rec.Status, rec.ErrorCode, rec.Message = StatusFailed, &code, changed.Error()
		return rec, j.Failed(rec.RequestID, rec.Row, 0, code, rec.Message, false)
	case errors.As(err, &auth):
		_ = j.Failed(rec.RequestID, rec.Row, auth.Status, 0, "authentication refused", false)
		rec.Status, rec.Message = StatusFailed, err.Error()
		return rec, err
	case errors.As(err, &gone):
		rec.Status, rec.Message = StatusFailed, "the trainee no longer exists"
		return rec, j.Failed(rec.RequestID, rec.Row, gone.Status, 0, rec.Message, false)
	case errors.As(err, &rejected):
		rec.Status = StatusFailed
		if code := rejected.ErrorCode; code != 0 {
			rec.ErrorCode = &code
			rec.Field, rec.Message, rec.Errors = rejected.Field, rejected.Message, rejected.Errors
		} else {
			rec.Message = err.Error()
		}
		return rec, j.Failed(rec.RequestID, rec.Row, rejected.Status, rejected.ErrorCode, rejected.Message, false)
	case ctx.Err() != nil:
		rec.Status = StatusUnknown
		rec.Message = "interrupted while the change was under way; run apply again to settle it"
		return rec, nil
	}
	rec.Status = StatusUnknown
	rec.Message = err.Error() + "; outcome unknown: run apply again (it reads the trainee afresh)"
	if errors.As(err, &network) {
		return rec, err
	}
	return rec, nil
}
