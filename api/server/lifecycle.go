package server

import (
	"net/http"

	"github.com/traineed/traineed/api"
)

// eraseTrainee is POST /trainees/{id}/erase (GDPR Article 17): with the
// trainee's e-mail address as confirm, it erases the trainee for good.
// An id erased before answers the same 200 again; an id that is no
// trainee of the company answers as every trainee route does.
func (h *Handler) eraseTrainee(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r)
	if err != nil {
		return err
	}
	body, err := readBody(w, r)
	if err != nil {
		return err
	}
	req, err := api.ParseErase(body)
	if err != nil {
		return err
	}
	erased, err := h.store.EraseTrainee(r.Context(), principal(r.Context()).CompanyID, id, req.Confirm)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, api.ErasedEnvelope{Timestamp: h.now().Unix(), Erased: erased})
	return nil
}

// exportTrainee is GET /trainees/{id}/export (GDPR Articles 15 and 20):
// everything held about the trainee, tracked data within the optional
// from and to.
func (h *Handler) exportTrainee(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r)
	if err != nil {
		return err
	}
	rng, err := api.ParseExportRange(r.URL.Query())
	if err != nil {
		return err
	}
	out, err := h.store.ExportTrainee(r.Context(), principal(r.Context()).CompanyID, id, rng)
	if err != nil {
		return err
	}
	out.Timestamp = h.now().Unix()
	writeJSON(w, http.StatusOK, out)
	return nil
}
