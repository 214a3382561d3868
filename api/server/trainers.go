package server

import (
	"net/http"

	"github.com/traineed/traineed/api"
)

// listTrainers answers GET /public-api/trainers: the caller's company's
// trainers (id, name, e-mail), lowest id first.
func (h *Handler) listTrainers(w http.ResponseWriter, r *http.Request) error {
	ts, err := h.store.Trainers(r.Context(), principal(r.Context()).CompanyID)
	if err != nil {
		return err
	}
	out := api.TrainerList{Timestamp: h.now().Unix(), Trainers: make([]api.TrainerSummary, len(ts))}
	for i, t := range ts {
		out.Trainers[i] = api.TrainerSummary{ID: t.ID, Name: t.Name, Email: t.Email}
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}
