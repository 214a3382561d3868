package server

import (
	"net/http"

	"github.com/traineed/traineed/api"
)

// The automations resource (issue 11). An automation of another company is
// answered like a trainee of another company.

func (h *Handler) writeAutomation(w http.ResponseWriter, a *api.Automation) error {
	writeJSON(w, http.StatusOK, api.AutomationEnvelope{Timestamp: h.now().Unix(), Automation: a})
	return nil
}

func (h *Handler) listAutomations(w http.ResponseWriter, r *http.Request) error {
	p := principal(r.Context())
	fp := api.ListFingerprint("automations", p.CompanyID)
	q, err := api.ParseListQuery(r.URL.Query(), api.PagedList, fp)
	if err != nil {
		return err
	}
	list, err := h.store.Automations(r.Context(), p.CompanyID, q)
	if err != nil {
		return err
	}
	next := nextCursor(w, r, fp, q, list, idKey(func(a *api.Automation) int64 { return a.ID }))
	writeJSON(w, http.StatusOK, api.AutomationPage{Timestamp: h.now().Unix(), Content: list.Rows, Page: list.PageInfo(q, next)})
	return nil
}

func (h *Handler) createAutomation(w http.ResponseWriter, r *http.Request) error {
	body, err := readBody(w, r)
	if err != nil {
		return err
	}
	spec, err := api.ParseAutomation(body, nil)
	if err != nil {
		return err
	}
	if err := h.checkAutomationURL(spec, nil); err != nil {
		return err
	}
	a, err := h.store.CreateAutomation(r.Context(), principal(r.Context()).CompanyID, spec, api.GenerateWebhookSecret(), h.maxAutomations)
	if err != nil {
		return err
	}
	return h.writeAutomation(w, a)
}

// checkAutomationURL refuses a WEBHOOK's action.url that the outbound
// policy refuses, when it is new (an unchanged URL stored before the rule
// is judged by the dispatcher, when it connects).
func (h *Handler) checkAutomationURL(spec api.AutomationSpec, before *api.AutomationSpec) error {
	if spec.ActionType != api.ActionWebhook || spec.URL == nil {
		return nil
	}
	// An unchanged URL is checked again when the automation is enabled:
	// one the server disabled for its destination stays refused until it
	// is changed.
	enabling := before != nil && spec.Enabled && !before.Enabled
	if before != nil && before.URL != nil && *before.URL == *spec.URL && !enabling {
		return nil
	}
	return h.checkDestination("action.url", *spec.URL)
}

func (h *Handler) getAutomation(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r)
	if err != nil {
		return err
	}
	a, _, err := h.store.Automation(r.Context(), principal(r.Context()).CompanyID, id)
	if err != nil {
		return err
	}
	return h.writeAutomation(w, a)
}

// updateAutomation merges the body onto the stored automation: members it
// leaves out keep their value, null clears.
func (h *Handler) updateAutomation(w http.ResponseWriter, r *http.Request) error {
	p := principal(r.Context())
	id, err := pathID(r)
	if err != nil {
		return err
	}
	body, err := readBody(w, r)
	if err != nil {
		return err
	}
	_, current, err := h.store.Automation(r.Context(), p.CompanyID, id)
	if err != nil {
		return err
	}
	base := current.Input()
	spec, err := api.ParseAutomation(body, &base)
	if err != nil {
		return err
	}
	if err := h.checkAutomationURL(spec, &current); err != nil {
		return err
	}
	a, err := h.store.UpdateAutomation(r.Context(), p.CompanyID, id, spec, api.GenerateWebhookSecret())
	if err != nil {
		return err
	}
	return h.writeAutomation(w, a)
}

func (h *Handler) deleteAutomation(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r)
	if err != nil {
		return err
	}
	a, err := h.store.DeleteAutomation(r.Context(), principal(r.Context()).CompanyID, id)
	if err != nil {
		return err
	}
	return h.writeAutomation(w, a)
}

func (h *Handler) automationRuns(w http.ResponseWriter, r *http.Request) error {
	p := principal(r.Context())
	id, err := pathID(r)
	if err != nil {
		return err
	}
	fp := api.ListFingerprint("runs", p.CompanyID, r.PathValue("id"))
	q, err := api.ParseListQuery(r.URL.Query(), api.PagedList, fp)
	if err != nil {
		return err
	}
	runs, err := h.store.AutomationRuns(r.Context(), p.CompanyID, id, q)
	if err != nil {
		return err
	}
	next := nextCursor(w, r, fp, q, runs, idKey(func(r *api.AutomationRun) int64 { return r.ID }))
	writeJSON(w, http.StatusOK, api.AutomationRunPage{Timestamp: h.now().Unix(), Content: runs.Rows, Page: runs.PageInfo(q, next)})
	return nil
}

// testAutomation is a dry run: the trainees the automation would fire for
// now, by id, paged like every list; it fires and sends nothing.
func (h *Handler) testAutomation(w http.ResponseWriter, r *http.Request) error {
	p := principal(r.Context())
	id, err := pathID(r)
	if err != nil {
		return err
	}
	fp := api.ListFingerprint("dry-run", p.CompanyID, r.PathValue("id"))
	q, err := api.ParseListQuery(r.URL.Query(), api.PagedList, fp)
	if err != nil {
		return err
	}
	list, err := h.store.AutomationMatches(r.Context(), p.CompanyID, id, p.Today(h.now()), q)
	if err != nil {
		return err
	}
	next := nextCursor(w, r, fp, q, list, idKey(func(t *api.Trainee) int64 { return t.ID }))
	writeJSON(w, http.StatusOK, api.TraineePage{Timestamp: h.now().Unix(), Content: list.Rows, Page: list.PageInfo(q, next)})
	return nil
}
