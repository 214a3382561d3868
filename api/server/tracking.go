package server

import (
	"net/http"

	"github.com/traineed/traineed/api"
)

// The four tracked-data reads (contract section 3 "Tracked data"). Each
// checks its parameters before touching the store, so a bad date is a 400
// whatever the id; an id outside the caller's company is the store's
// ErrNotFound, which writeError turns into the marked 500.

func (h *Handler) weightHistory(w http.ResponseWriter, r *http.Request) {
	p := principal(r.Context())
	id, err := pathID(r)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	from, to, err := api.ParseRange(r.URL.Query(), p.Today(h.now()))
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	out, err := h.store.WeightHistory(r.Context(), p.CompanyID, id, from, to)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	out.Timestamp = h.now().Unix()
	writeJSON(w, http.StatusOK, out)
}

func (h *Handler) measurements(w http.ResponseWriter, r *http.Request) {
	p := principal(r.Context())
	id, err := pathID(r)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	q := r.URL.Query()
	from, to, err := api.ParseRange(q, p.Today(h.now()))
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	typ, err := api.ParseMeasurementType(q)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	out, err := h.store.Measurements(r.Context(), p.CompanyID, id, from, to, typ)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	out.Timestamp = h.now().Unix()
	writeJSON(w, http.StatusOK, out)
}

func (h *Handler) nutrition(w http.ResponseWriter, r *http.Request) {
	p := principal(r.Context())
	id, err := pathID(r)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	day, err := api.ParseDay(r.URL.Query(), p.Today(h.now()))
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	out, err := h.store.Nutrition(r.Context(), p.CompanyID, id, day)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	out.Timestamp = h.now().Unix()
	writeJSON(w, http.StatusOK, out)
}

func (h *Handler) averageSteps(w http.ResponseWriter, r *http.Request) {
	p := principal(r.Context())
	id, err := pathID(r)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	out, err := h.store.AverageSteps(r.Context(), p.CompanyID, id, p.Today(h.now()))
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	out.Timestamp = h.now().Unix()
	writeJSON(w, http.StatusOK, out)
}
