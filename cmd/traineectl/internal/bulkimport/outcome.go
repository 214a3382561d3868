package bulkimport

// A row's outcome when its create did not simply succeed: refused,
// rejected, unanswered, or settled by looking its e-mail up.

import (
	"context"
	"errors"

	"github.com/traineed/traineed/api"

	"github.com/traineed/traineed/api/client"
)

// lookupFailed is the record of a row whose outcome stays unknown because
// its lookup failed; the run stops when the server cannot be reached or the
// key is refused.
func lookupFailed(rec Record, err error) (Record, error) {
	rec.Status = StatusUnknown
	rec.Message = "outcome unknown, and looking the e-mail up failed: " + err.Error() + "; run the import again to settle it"
	var ne *client.NetworkError
	var ae *client.AuthRefusedError
	if errors.As(err, &ne) || errors.As(err, &ae) || errors.Is(err, context.Canceled) {
		return rec, err
	}
	return rec, nil
}

// ServerFailingError stops a run whose server answers only 5xx: a row's
// create and then its lookup both failed with a server error after the
// retries. It stops the run like an unreachable server does.
type ServerFailingError struct{ Err error }

func (e *ServerFailingError) Error() string {
	return "the server keeps failing, import stopped: " + e.Err.Error()
}

func (e *ServerFailingError) Unwrap() error { return e.Err }

// settled is the record of a row found by its e-mail.
func (r *runner) settled(rec Record, row *Row, t *api.Trainee, status, msg string) (Record, error) {
	if err := r.o.Journal.Created(row.RequestID, row.Num, t.ID, "lookup"); err != nil {
		return rec, err
	}
	id := t.ID
	rec.Status, rec.TraineeID, rec.Message = status, &id, msg
	r.withPassword(&rec, row)
	return rec, nil
}

// Messages of rows found by their e-mail.
const (
	foundEarlier = "created by an earlier run whose answer was lost (found by its e-mail)"
	foundRetried = "created; its answer was lost and the retry found the e-mail taken (found by its e-mail)"
	foundLost    = "created; its answer was lost (found by its e-mail)"
)

// process imports one row that the journal does not have as created. A
// non-nil error stops the run.
func (r *runner) process(ctx context.Context, row *Row) (Record, error) {
	j := r.o.Journal
	rec := r.base(row)
	e, _ := j.Entry(row.RequestID)
	earlier := e.Uncertain // an earlier run sent it and does not know the outcome
	if earlier {
		t, err := r.o.API.FindByEmail(ctx, row.Email)
		if err != nil {
			return lookupFailed(rec, err)
		}
		if t != nil {
			return r.settled(rec, row, t, StatusAlreadyDone, foundEarlier)
		}
	}
	req, err := r.request(row, rec)
	if err != nil {
		return rec, err
	}
	if err := j.Sent(row.RequestID, row.Num, row.Email); err != nil {
		return rec, err
	}
	t, err := r.create(ctx, row, req)
	if err != nil {
		return r.createFailed(ctx, row, rec, earlier, err)
	}
	if err := j.Created(row.RequestID, row.Num, t.ID, "response"); err != nil {
		return rec, err
	}
	id := t.ID
	rec.Status, rec.TraineeID = StatusCreated, &id
	if row.GeneratePassword {
		rec.Password = req.Password
	}
	return rec, nil
}

// request is the row's create body, with its generated password: the one
// on file from an earlier run, else a new one, put on file (pending)
// before it is sent.
func (r *runner) request(row *Row, rec Record) (api.CreateRequest, error) {
	req := row.Req
	if !row.GeneratePassword {
		return req, nil
	}
	pw, ok := "", false
	if r.o.Results != nil {
		pw, ok = r.o.Results.Password(row.RequestID)
	}
	if !ok {
		pw = r.o.GeneratePassword()
		p := rec
		p.Password = pw
		if err := r.o.Results.Pending(p); err != nil {
			return req, err
		}
	}
	req.Password = pw
	return req, nil
}

// createFailed settles a row whose create returned err: a refused key
// stops the run, a rejection is the row's failure (unless the row turns
// out created), an interruption leaves it unknown, and no answer is looked
// up.
func (r *runner) createFailed(ctx context.Context, row *Row, rec Record, earlier bool, err error) (Record, error) {
	var (
		rejected *client.RejectedError
		auth     *client.AuthRefusedError
		erased   *client.ErasedError
	)
	switch {
	case errors.As(err, &erased):
		return r.refusedErased(row, rec, erased)
	case errors.As(err, &auth):
		_ = r.o.Journal.Failed(row.RequestID, row.Num, auth.Status, 0, "authentication refused", false)
		rec.Status, rec.Message = StatusFailed, err.Error()
		return rec, err
	case errors.As(err, &rejected):
		return r.rejected(ctx, row, rec, earlier, rejected, err)
	case ctx.Err() != nil:
		rec.Status = StatusUnknown
		rec.Message = "interrupted while the create was under way; run the import again to settle it"
		return rec, nil
	}
	return r.unanswered(ctx, row, rec, earlier, err)
}

// rejected settles a create the server refused (4xx): err, which is or
// wraps rejected.
func (r *runner) rejected(ctx context.Context, row *Row, rec Record, earlier bool,
	rejected *client.RejectedError, err error) (Record, error) {
	retried := rejected.Attempts > 1
	taken := rejected.ErrorCode == api.CodeEmailTaken || rejected.ErrorCode == api.CodePhoneTaken
	if taken && (earlier || retried) {
		// The e-mail (or the phone number: which of the two a
		// database reports first is its choice) is taken, and a send
		// of this row may have created it (an attempt without an
		// answer): look the e-mail up.
		t, lerr := r.o.API.FindByEmail(ctx, row.Email)
		if lerr != nil {
			return lookupFailed(rec, lerr)
		}
		if t != nil {
			if earlier {
				return r.settled(rec, row, t, StatusAlreadyDone, foundEarlier)
			}
			return r.settled(rec, row, t, StatusCreated, foundRetried)
		}
	}
	code := rejected.ErrorCode
	if jerr := r.o.Journal.Failed(row.RequestID, row.Num, rejected.Status, code, rejected.Message, false); jerr != nil {
		return rec, jerr
	}
	rec.Status = StatusFailed
	if code != 0 {
		rec.ErrorCode = &code
		rec.Field, rec.Message = rejected.Field, rejected.Message
		rec.Errors = rejected.Errors
	} else {
		rec.Message = err.Error()
	}
	return rec, nil
}

// unanswered settles a create without an answer, or with a 5xx after the
// retries: the create may or may not have happened, so the e-mail is
// looked up.
func (r *runner) unanswered(ctx context.Context, row *Row, rec Record, earlier bool, err error) (Record, error) {
	t, lerr := r.o.API.FindByEmail(ctx, row.Email)
	if lerr != nil {
		rec, stop := lookupFailed(rec, lerr)
		rec.Message = err.Error() + "; " + rec.Message
		var se *client.ServerError
		if stop == nil && errors.As(lerr, &se) {
			// Neither the create nor the lookup got past a 5xx, retries
			// included: every other row would fare the same, slowly.
			stop = &ServerFailingError{Err: lerr}
		}
		return rec, stop
	}
	if t != nil {
		status := StatusCreated
		if earlier {
			status = StatusAlreadyDone
		}
		return r.settled(rec, row, t, status, foundLost)
	}
	status := 0
	var se *client.ServerError
	if errors.As(err, &se) {
		status = se.Status
	}
	msg := err.Error() + "; not created (its e-mail is not found)"
	if jerr := r.o.Journal.Failed(row.RequestID, row.Num, status, 0, msg, true); jerr != nil {
		return rec, jerr
	}
	rec.Status, rec.Message = StatusFailed, msg
	return rec, nil
}
