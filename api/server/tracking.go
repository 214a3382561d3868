package server

import (
	"context"
	"net/http"

	"github.com/traineed/traineed/api"
)

// The four tracked-data reads (contract section 3 "Tracked data"). Each
// checks its parameters before touching the store, so a bad date is a 400
// whatever the id; an id outside the caller's company is the store's
// api.ErrNotFound, which writeError turns into the marked 500.

func (h *Handler) weightHistory(w http.ResponseWriter, r *http.Request) error {
	return rangeRead(h, w, r, h.store.WeightHistory, func(o *api.WeightHistory, ts int64) { o.Timestamp = ts })
}

// rangeRead answers a tracked read of a date range (weight history,
// daily steps): the range checked before the trainee, then the store's
// read, stamped with the answer's time.
func rangeRead[T any](h *Handler, w http.ResponseWriter, r *http.Request,
	read func(ctx context.Context, companyID, traineeID int64, from, to api.Date) (*T, error), stamp func(*T, int64)) error {
	p, id, err := h.trackedTarget(r)
	if err != nil {
		return err
	}
	from, to, err := api.ParseRange(r.URL.Query(), p.Today(h.now()))
	if err != nil {
		return err
	}
	out, err := read(r.Context(), p.CompanyID, id, from, to)
	if err != nil {
		return err
	}
	stamp(out, h.now().Unix())
	writeJSON(w, http.StatusOK, out)
	return nil
}

func (h *Handler) measurements(w http.ResponseWriter, r *http.Request) error {
	p, id, err := h.trackedTarget(r)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	from, to, err := api.ParseRange(q, p.Today(h.now()))
	if err != nil {
		return err
	}
	typ, err := api.ParseMeasurementType(q)
	if err != nil {
		return err
	}
	out, err := h.store.Measurements(r.Context(), p.CompanyID, id, from, to, typ)
	if err != nil {
		return err
	}
	out.Timestamp = h.now().Unix()
	writeJSON(w, http.StatusOK, out)
	return nil
}

func (h *Handler) nutrition(w http.ResponseWriter, r *http.Request) error {
	p, id, err := h.trackedTarget(r)
	if err != nil {
		return err
	}
	day, err := api.ParseDay(r.URL.Query(), p.Today(h.now()))
	if err != nil {
		return err
	}
	out, err := h.store.Nutrition(r.Context(), p.CompanyID, id, day)
	if err != nil {
		return err
	}
	out.Timestamp = h.now().Unix()
	writeJSON(w, http.StatusOK, out)
	return nil
}

func (h *Handler) steps(w http.ResponseWriter, r *http.Request) error {
	return rangeRead(h, w, r, h.store.Steps, func(o *api.DailySteps, ts int64) { o.Timestamp = ts })
}

func (h *Handler) averageSteps(w http.ResponseWriter, r *http.Request) error {
	p, id, err := h.trackedTarget(r)
	if err != nil {
		return err
	}
	out, err := h.store.AverageSteps(r.Context(), p.CompanyID, id, p.Today(h.now()))
	if err != nil {
		return err
	}
	out.Timestamp = h.now().Unix()
	writeJSON(w, http.StatusOK, out)
	return nil
}

// trackedTarget is the caller and the trainee id of a tracked-data read.
func (h *Handler) trackedTarget(r *http.Request) (*api.Principal, int64, error) {
	id, err := pathID(r)
	return principal(r.Context()), id, err
}
