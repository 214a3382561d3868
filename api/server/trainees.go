package server

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/traineed/traineed/api"
)

func (h *Handler) writeTrainee(w http.ResponseWriter, t *api.Trainee) error {
	writeJSON(w, http.StatusOK, api.TraineeEnvelope{Timestamp: h.now().Unix(), Trainee: t})
	return nil
}

func (h *Handler) createTrainee(w http.ResponseWriter, r *http.Request) error {
	p := principal(r.Context())
	body, err := readBody(w, r)
	if err != nil {
		return err
	}
	req, err := api.ParseCreate(body, p.Today(h.now()))
	if err != nil {
		if req != nil {
			err = h.withTrainerProblem(r.Context(), p.CompanyID, req.TrainerID, err)
		}
		return err
	}
	req.TrainerID = defaultTrainer(p, req.TrainerID)
	if err := assignable(p, req.TrainerID); err != nil {
		return err
	}
	if err := h.refuseErased(r, p.CompanyID, req); err != nil {
		return err // before the hash: a refusal costs no argon2id
	}
	hash, err := h.hasher.Hash(r.Context(), req.Password)
	if err != nil {
		return err
	}
	nt := api.NewTraineeOf(req, hash)
	if vc, ok := h.store.(api.TraineeVersionCreator); ok {
		t, version, err := vc.CreateTraineeVersion(r.Context(), p.CompanyID, nt)
		if err != nil {
			return err
		}
		return h.writeVersioned(w, t, version) // the ETag a conditional update sends
	}
	t, err := h.store.CreateTrainee(r.Context(), p.CompanyID, nt)
	if err != nil {
		return err
	}
	return h.writeTrainee(w, t)
}

// refuseErased is the create's check when the request asks for it
// (api.HeaderRefuseErased: true): an e-mail or phone number of a trainee
// erased from the company is an *api.ErasedError (409 1038). Without the
// header a create is as the interface defines it.
func (h *Handler) refuseErased(r *http.Request, companyID int64, req *api.CreateRequest) error {
	if !strings.EqualFold(strings.TrimSpace(r.Header.Get(api.HeaderRefuseErased)), "true") {
		return nil
	}
	m, err := h.store.ErasedMatches(r.Context(), companyID, []api.ErasedProbe{{Email: req.Email, PhoneNumber: req.PhoneNumber}})
	if err != nil || len(m) == 0 {
		return err
	}
	return &api.ErasedError{Field: m[0].Field, ErasedAt: m[0].ErasedAt}
}

// erasedCheck answers POST /trainees/erased-check: which of the people
// sent name a trainee erased from the company, by index.
func (h *Handler) erasedCheck(w http.ResponseWriter, r *http.Request) error {
	p := principal(r.Context())
	body, err := readBody(w, r)
	if err != nil {
		return err
	}
	req, err := api.ParseErasedCheck(body)
	if err != nil {
		return err
	}
	m, err := h.store.ErasedMatches(r.Context(), p.CompanyID, req.People)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, api.ErasedCheckEnvelope{Timestamp: h.now().Unix(), Matches: m})
	return nil
}

// withTrainerProblem adds a 1010 to a body's other problems when its
// trainerId is not a trainer of the company, so that the 400 lists every
// problem at once (a valid body gets the 1010 from the store instead).
func (h *Handler) withTrainerProblem(ctx context.Context, companyID int64, trainerID *int64, err error) error {
	var v *api.ValidationError
	if trainerID == nil || *trainerID <= 0 || !errors.As(err, &v) {
		return err // absent, or already reported by validation
	}
	ok, lookupErr := h.store.IsTrainer(ctx, companyID, *trainerID)
	if lookupErr != nil {
		return lookupErr
	}
	if !ok {
		v.Add(api.CodeUnknownTrainer, "trainerId", "trainer %d is not a trainer of this company", *trainerID)
	}
	return v
}

// versionedTrainee is a trainee and its version (its ETag; 0: unknown).
type versionedTrainee struct {
	t       *api.Trainee
	version int64
}

// writeVersioned is writeTrainee with the trainee's ETag.
func (h *Handler) writeVersioned(w http.ResponseWriter, t *api.Trainee, version int64) error {
	if version > 0 {
		w.Header().Set(api.HeaderETag, api.ETag(version))
	}
	return h.writeTrainee(w, t)
}

func (h *Handler) getTrainee(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r)
	if err != nil {
		return err
	}
	if vt, ok := r.Context().Value(traineeReadKey).(*versionedTrainee); ok && vt.t != nil && vt.t.ID == id && vt.version > 0 {
		return h.writeVersioned(w, vt.t, vt.version) // read with the key, in its company
	}
	t, version, err := h.store.TraineeVersion(r.Context(), principal(r.Context()).CompanyID, id)
	if err != nil {
		return err
	}
	return h.writeVersioned(w, t, version)
}

func (h *Handler) updateTrainee(w http.ResponseWriter, r *http.Request) error {
	p := principal(r.Context())
	id, err := pathID(r)
	if err != nil {
		return err
	}
	if _, err := api.ParseIfMatch(r.Header.Values(api.HeaderIfMatch)); err != nil {
		return err
	}
	body, err := readBody(w, r)
	if err != nil {
		return err
	}
	patch, err := api.ParseUpdate(body, p.Today(h.now()))
	if err != nil {
		if patch != nil && patch.TrainerID.Set {
			err = h.withTrainerProblem(r.Context(), p.CompanyID, &patch.TrainerID.Value, err)
		}
		return err
	}
	if patch.TrainerID.Set {
		var to *int64
		if !patch.TrainerID.Null {
			to = &patch.TrainerID.Value
		}
		if err := assignable(p, to); err != nil {
			return err
		}
	}
	if patch.Password.Set {
		hash, err := h.hasher.Hash(r.Context(), patch.Password.Value)
		if err != nil {
			return err
		}
		patch.Password = api.Val(hash) // the store never sees it in clear
	}
	return h.patch(w, r, id, *patch)
}

func (h *Handler) deleteTrainee(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r)
	if err != nil {
		return err
	}
	return h.patch(w, r, id, api.TraineePatch{Enabled: api.Val(false)})
}

// patch applies p to the trainee when the request's If-Match (if any)
// matches its version, and answers with the trainee and its new ETag.
func (h *Handler) patch(w http.ResponseWriter, r *http.Request, id int64, p api.TraineePatch) error {
	m, err := api.ParseIfMatch(r.Header.Values(api.HeaderIfMatch))
	if err != nil {
		return err
	}
	t, version, err := h.store.UpdateTraineeIf(r.Context(), principal(r.Context()).CompanyID, id, m, p)
	if err != nil {
		return err
	}
	return h.writeVersioned(w, t, version)
}

// traineeStats answers GET /trainees/stats: the dashboard's counts.
func (h *Handler) traineeStats(w http.ResponseWriter, r *http.Request) error {
	p := principal(r.Context())
	given, err := api.ParseStatsQuery(r.URL.Query())
	if err != nil {
		return err
	}
	trainer, ok := narrowTrainer(p, given)
	if !ok {
		st := &api.TraineeStats{Timestamp: h.now().Unix()} // another trainer's: none of the key's
		writeJSON(w, http.StatusOK, st)
		return nil
	}
	st, err := h.store.TraineeStats(r.Context(), p.CompanyID, trainer, p.Today(h.now()), p.Location)
	if err != nil {
		return err
	}
	st.Timestamp = h.now().Unix()
	writeJSON(w, http.StatusOK, st)
	return nil
}

func (h *Handler) searchTrainees(w http.ResponseWriter, r *http.Request) error {
	p := principal(r.Context())
	s, err := api.ParseSearch(r.URL.Query(), p.Today(h.now()))
	if err != nil {
		return err
	}
	s.Zone = p.Location
	var (
		list  []*api.Trainee
		total int64
	)
	// A limited key's search is narrowed to its trainer's trainees; its
	// cursors remain those of the search it asked for.
	if trainer, ok := narrowTrainer(p, s.TrainerID); ok {
		narrowed := s
		narrowed.TrainerID = trainer
		if list, total, err = h.store.SearchTrainees(r.Context(), p.CompanyID, narrowed); err != nil {
			return err
		}
	}
	if list == nil {
		list = []*api.Trainee{}
	}
	page := s.PageInfo(total)
	page.CursorPage = linkNext(w, r, s.NextCursor(list, total))
	writeJSON(w, http.StatusOK, api.TraineePage{Timestamp: h.now().Unix(), Content: list, Page: page})
	return nil
}
