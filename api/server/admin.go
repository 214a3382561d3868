package server

import (
	"errors"
	"net/http"
	"strings"

	"github.com/traineed/traineed/api"
)

// Company administration (issue 34): a route's scope and a key limited to
// its trainer's trainees, checked before the route; the routes of keys,
// trainers and the company's settings.

// admit checks a key against a route before it runs: the route's scope
// (403 1029 for an admin route; a read key's write was refused already,
// 1014), then, for a key limited to its trainer's trainees, the route's
// rule: refused (403 1030), or a trainee id that must be the trainer's
// (any other is answered as another company's: the empty 500).
func (h *Handler) admit(r *http.Request, p *api.Principal, rt route) error {
	if !api.ScopeIncludes(p.Scope, rt.scope) {
		if rt.scope == api.KeyScopeAdmin {
			return api.ErrAdminScope
		}
		return api.ErrReadOnlyKey
	}
	own, limited := p.OwnTrainer()
	if !limited {
		return nil
	}
	switch rt.own {
	case ownRefused:
		return api.ErrOwnTrainees
	case ownTrainee:
		return h.checkOwnTrainee(r, own)
	}
	return nil
}

// checkOwnTrainee is api.ErrNotFound unless the trainee of the path (its
// {id}, read from the path before the route is chosen) is trainer own's.
// A GET by id has read the trainee with the key already: no second read.
func (h *Handler) checkOwnTrainee(r *http.Request, own int64) error {
	rest := strings.TrimPrefix(r.URL.Path, api.PathTrainees+"/")
	raw, _, _ := strings.Cut(rest, "/")
	id, ok := api.ParseID(raw)
	if !ok {
		return nil // the route answers 1012
	}
	var trainer *int64
	if vt, ok := r.Context().Value(traineeReadKey).(*versionedTrainee); ok && vt.t != nil && vt.t.ID == id {
		trainer = vt.t.TrainerID
	} else {
		t, err := h.store.TraineeTrainer(r.Context(), principal(r.Context()).CompanyID, id)
		if err != nil {
			return err
		}
		trainer = t
	}
	if trainer == nil || *trainer != own {
		return api.ErrNotFound
	}
	return nil
}

// assignable checks the trainer a key gives a trainee (create, or an
// update's trainerId): a key limited to its trainer's trainees may give
// that trainer only (403 1030).
func assignable(p *api.Principal, trainerID *int64) error {
	own, limited := p.OwnTrainer()
	if limited && (trainerID == nil || *trainerID != own) {
		return api.ErrOwnTrainees
	}
	return nil
}

// defaultTrainer is the trainer of a trainee created without one: the
// trainer a key is bound to (it acts as that person), else nil (the
// company's first active trainer, the interface's rule).
func defaultTrainer(p *api.Principal, given *int64) *int64 {
	if given == nil && p.TrainerID != nil {
		id := *p.TrainerID
		return &id
	}
	return given
}

// narrowTrainer is the trainer a search, count or feed of p keeps to:
// given (trainerId=, nil for none), or for a key limited to its trainer's
// trainees that trainer. ok is false when given names another trainer
// than such a key's own: nothing matches.
func narrowTrainer(p *api.Principal, given *int64) (trainer *int64, ok bool) {
	own, limited := p.OwnTrainer()
	switch {
	case !limited:
		return given, true
	case given != nil && *given != own:
		return nil, false
	}
	return &own, true
}

func (h *Handler) writeKey(w http.ResponseWriter, k *api.APIKey, secret string) error {
	writeJSON(w, http.StatusOK, api.KeyEnvelope{Timestamp: h.now().Unix(), Key: k, Secret: secret})
	return nil
}

func (h *Handler) listKeys(w http.ResponseWriter, r *http.Request) error {
	p := principal(r.Context())
	q, err := api.ParseKeyListQuery(r.URL.Query(), p.CompanyID, h.now())
	if err != nil {
		return err
	}
	list, err := h.store.KeyPage(r.Context(), p.CompanyID, q)
	if err != nil {
		return err
	}
	fp := api.ListFingerprint("keys", p.CompanyID, q.State)
	next := nextCursor(w, r, fp, q.ListQuery, list, idKey(func(k *api.APIKey) int64 { return k.ID }))
	keys := list.Rows
	if keys == nil {
		keys = []*api.APIKey{}
	}
	writeJSON(w, http.StatusOK, api.KeyList{Timestamp: h.now().Unix(), Keys: keys, Page: next})
	return nil
}

// createKey makes a key; its secret is in this answer only. Only admin
// keys come here, and none is limited to a trainer's trainees (admit), so
// no key it makes can do more than the key that makes it.
func (h *Handler) createKey(w http.ResponseWriter, r *http.Request) error {
	p := principal(r.Context())
	body, err := readBody(w, r)
	if err != nil {
		return err
	}
	nk, err := api.ParseNewKey(body, h.now())
	if err != nil {
		return err
	}
	if !api.ScopeIncludes(p.Scope, nk.Scope) {
		return api.ErrEscalation // never with an admin key; kept for a wider scope one day
	}
	secret := api.GenerateKey()
	nk.Hash, nk.Prefix = api.HashKey(secret), api.KeyDisplayPrefix(secret)
	k, err := h.store.CreateCompanyKey(r.Context(), p.CompanyID, *nk)
	if err != nil {
		return err
	}
	return h.writeKey(w, k, secret)
}

func (h *Handler) getKey(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r)
	if err != nil {
		return err
	}
	k, err := h.store.CompanyKey(r.Context(), principal(r.Context()).CompanyID, id)
	if err != nil {
		return err
	}
	return h.writeKey(w, k, "")
}

// updateKey changes a key's name, expiry, state or scope. A key never
// changes its own scope (403 1031): an admin key that could demote itself
// could as well be told to by a leaked script.
func (h *Handler) updateKey(w http.ResponseWriter, r *http.Request) error {
	p := principal(r.Context())
	id, err := pathID(r)
	if err != nil {
		return err
	}
	body, err := readBody(w, r)
	if err != nil {
		return err
	}
	patch, err := api.ParseKeyPatch(body, h.now())
	if err != nil {
		return err
	}
	if patch.Scope != nil && (id == p.KeyID || !api.ScopeIncludes(p.Scope, *patch.Scope)) {
		return api.ErrEscalation
	}
	k, err := h.store.UpdateCompanyKey(r.Context(), p.CompanyID, id, *patch)
	if err != nil {
		return err
	}
	return h.writeKey(w, k, "")
}

func (h *Handler) rotateKey(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r)
	if err != nil {
		return err
	}
	body, err := readBody(w, r)
	if err != nil {
		return err
	}
	overlap, err := api.ParseKeyRotation(body)
	if err != nil {
		return err
	}
	secret := api.GenerateKey()
	k, err := h.store.RotateCompanyKey(r.Context(), principal(r.Context()).CompanyID, id, api.HashKey(secret), api.KeyDisplayPrefix(secret), overlap)
	if err != nil {
		return err
	}
	return h.writeKey(w, k, secret)
}

func (h *Handler) revokeKey(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r)
	if err != nil {
		return err
	}
	k, err := h.store.RevokeCompanyKey(r.Context(), principal(r.Context()).CompanyID, id)
	if err != nil {
		return err
	}
	return h.writeKey(w, k, "")
}

// listTrainers answers GET /public-api/trainers: the caller's company's
// trainers, lowest id first, with their live trainees' counts when asked
// (counts=true; a key limited to its trainer's trainees sees its trainer's
// count only).
func (h *Handler) listTrainers(w http.ResponseWriter, r *http.Request) error {
	p := principal(r.Context())
	counts, err := api.ParseTrainerList(r.URL.Query())
	if err != nil {
		return err
	}
	ts, err := h.store.CompanyTrainers(r.Context(), p.CompanyID, counts)
	if err != nil {
		return err
	}
	out := api.TrainerList{Timestamp: h.now().Unix(), Trainers: make([]api.TrainerSummary, len(ts))}
	for i, t := range ts {
		out.Trainers[i] = *shownTrainer(p, t)
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// shownTrainer is t as p may see it: without its count for a key limited
// to another trainer's trainees.
func shownTrainer(p *api.Principal, t *api.TrainerSummary) *api.TrainerSummary {
	if own, limited := p.OwnTrainer(); limited && t.ID != own {
		c := *t
		c.Trainees = nil
		return &c
	}
	return t
}

func (h *Handler) writeTrainer(w http.ResponseWriter, r *http.Request, t *api.TrainerSummary) error {
	writeJSON(w, http.StatusOK, api.TrainerEnvelope{Timestamp: h.now().Unix(), Trainer: shownTrainer(principal(r.Context()), t)})
	return nil
}

func (h *Handler) getTrainer(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r)
	if err != nil {
		return err
	}
	t, err := h.store.CompanyTrainer(r.Context(), principal(r.Context()).CompanyID, id)
	if err != nil {
		return err
	}
	return h.writeTrainer(w, r, t)
}

func (h *Handler) createTrainer(w http.ResponseWriter, r *http.Request) error {
	body, err := readBody(w, r)
	if err != nil {
		return err
	}
	nt, err := api.ParseNewTrainer(body)
	if err != nil {
		return err
	}
	t, err := h.store.CreateCompanyTrainer(r.Context(), principal(r.Context()).CompanyID, *nt)
	if err != nil {
		return err
	}
	return h.writeTrainer(w, r, t)
}

func (h *Handler) updateTrainer(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r)
	if err != nil {
		return err
	}
	body, err := readBody(w, r)
	if err != nil {
		return err
	}
	patch, err := api.ParseTrainerPatch(body)
	if err != nil {
		return err
	}
	out, err := h.store.UpdateTrainer(r.Context(), principal(r.Context()).CompanyID, id, *patch)
	if err != nil {
		return reassignField(err, "reassignTo")
	}
	out.Timestamp, out.Trainer = h.now().Unix(), shownTrainer(principal(r.Context()), out.Trainer)
	writeJSON(w, http.StatusOK, out)
	return nil
}

func (h *Handler) reassignTrainees(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r)
	if err != nil {
		return err
	}
	body, err := readBody(w, r)
	if err != nil {
		return err
	}
	re, err := api.ParseReassignment(body)
	if err != nil {
		return err
	}
	out, err := h.store.ReassignTrainees(r.Context(), principal(r.Context()).CompanyID, id, re.To)
	if err != nil {
		return reassignField(err, "to")
	}
	out.Timestamp = h.now().Unix()
	writeJSON(w, http.StatusOK, out)
	return nil
}

// reassignField names field in the store's refusal of the trainer that
// takes trainees over (the store says trainerId, a trainee's field).
func reassignField(err error, field string) error {
	var v *api.ValidationError
	if errors.As(err, &v) {
		for i := range v.Errors {
			if v.Errors[i].Field == "trainerId" {
				v.Errors[i].Field = field
			}
		}
	}
	return err
}

func (h *Handler) writeCompany(w http.ResponseWriter, c *api.Company) error {
	writeJSON(w, http.StatusOK, api.CompanyEnvelope{Timestamp: h.now().Unix(), Company: c})
	return nil
}

func (h *Handler) getCompany(w http.ResponseWriter, r *http.Request) error {
	c, err := h.store.Company(r.Context(), principal(r.Context()).CompanyID)
	if err != nil {
		return err
	}
	return h.writeCompany(w, c)
}

// updateCompany changes the company's name or time zone: the zone decides
// the company's "today" (who is expired, the dashboard's days) from the
// next request on.
func (h *Handler) updateCompany(w http.ResponseWriter, r *http.Request) error {
	body, err := readBody(w, r)
	if err != nil {
		return err
	}
	patch, err := api.ParseCompanyPatch(body)
	if err != nil {
		return err
	}
	c, err := h.store.UpdateCompany(r.Context(), principal(r.Context()).CompanyID, *patch)
	if err != nil {
		return err
	}
	return h.writeCompany(w, c)
}
