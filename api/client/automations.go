package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"net/url"
	"strconv"

	"github.com/traineed/traineed/api"
)

// The automations resource. An automation id of another company is a
// *TraineeNotFoundError whose Resource is "automation".

func automationPath(id int64) string { return api.PathAutomations + "/" + strconv.FormatInt(id, 10) }

// AutomationParams are the body of an automation's create or update: an
// absent member (the zero Optional) is not sent, so an update keeps its
// value; api.Null clears it (a condition, a trigger's days).
type AutomationParams struct {
	Name       api.Optional[string]               `json:"name,omitzero"`
	Enabled    api.Optional[bool]                 `json:"enabled,omitzero"`
	Trigger    api.Optional[AutomationTrigger]    `json:"trigger,omitzero"`
	Conditions api.Optional[AutomationConditions] `json:"conditions,omitzero"`
	ActionType api.Optional[string]               `json:"actionType,omitzero"`
	Action     api.Optional[AutomationAction]     `json:"action,omitzero"`
}

// AutomationTrigger is the trigger member: its type (api.Trigger...) and
// the days of the triggers that take them.
type AutomationTrigger struct {
	Type api.Optional[string] `json:"type,omitzero"`
	Days api.Optional[int]    `json:"days,omitzero"`
}

// AutomationConditions is the conditions member: one trainer's trainees,
// a trainee status.
type AutomationConditions struct {
	TrainerID api.Optional[int64]  `json:"trainerId,omitzero"`
	Status    api.Optional[string] `json:"status,omitzero"`
}

// AutomationAction is the action member: a WEBHOOK's URL.
type AutomationAction struct {
	URL api.Optional[string] `json:"url,omitzero"`
}

// automationCall sends one request about automation id (0 for none) and
// decodes the 2xx body into out.
func (c *Client) automationCall(ctx context.Context, method, path string, q url.Values, body any, id int64, out any, opts []RequestOption) error {
	b, err := c.Do(ctx, method, path, q, body, id, opts...)
	var nf *TraineeNotFoundError
	if errors.As(err, &nf) {
		nf.Resource = "automation"
	}
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, out); err != nil {
		return fmt.Errorf("decode response of %s %s: %w", method, path, err)
	}
	return nil
}

func (c *Client) automation(ctx context.Context, method, path string, body any, id int64, opts []RequestOption) (*api.Automation, error) {
	var env api.AutomationEnvelope
	if err := c.automationCall(ctx, method, path, nil, body, id, &env, opts); err != nil {
		return nil, err
	}
	if env.Automation == nil {
		return nil, fmt.Errorf("decode response of %s %s: no automation", method, path)
	}
	return env.Automation, nil
}

// Automations returns one page of the company's automations, by id.
func (c *Client) Automations(ctx context.Context, p ListParams, opts ...RequestOption) (*api.AutomationPage, error) {
	var out api.AutomationPage
	return &out, c.automationCall(ctx, http.MethodGet, api.PathAutomations, p.values(), nil, 0, &out, opts)
}

// ListAutomations iterates over the company's automations, by id.
func (c *Client) ListAutomations(ctx context.Context, p ListParams, opts ...RequestOption) iter.Seq2[*api.Automation, error] {
	return listSeq(ctx, c.Automations, p, opts)
}

// Automation returns one automation.
func (c *Client) Automation(ctx context.Context, id int64, opts ...RequestOption) (*api.Automation, error) {
	return c.automation(ctx, http.MethodGet, automationPath(id), nil, id, opts)
}

// CreateAutomation creates an automation; a WEBHOOK's result carries its
// secret.
func (c *Client) CreateAutomation(ctx context.Context, p AutomationParams, opts ...RequestOption) (*api.Automation, error) {
	return c.automation(ctx, http.MethodPost, api.PathAutomations, p, 0, opts)
}

// UpdateAutomation sends the members p sets, merged by the server onto
// the automation (Enabled alone enables or disables it).
func (c *Client) UpdateAutomation(ctx context.Context, id int64, p AutomationParams, opts ...RequestOption) (*api.Automation, error) {
	return c.automation(ctx, http.MethodPut, automationPath(id), p, id, opts)
}

// DeleteAutomation deletes an automation and returns it as it was.
func (c *Client) DeleteAutomation(ctx context.Context, id int64, opts ...RequestOption) (*api.Automation, error) {
	return c.automation(ctx, http.MethodDelete, automationPath(id), nil, id, opts)
}

// AutomationRuns returns one page of an automation's runs, newest first.
func (c *Client) AutomationRuns(ctx context.Context, id int64, p ListParams, opts ...RequestOption) (*api.AutomationRunPage, error) {
	var out api.AutomationRunPage
	return &out, c.automationCall(ctx, http.MethodGet, automationPath(id)+"/runs", p.values(), nil, id, &out, opts)
}

// ListAutomationRuns iterates over an automation's runs, newest first.
func (c *Client) ListAutomationRuns(ctx context.Context, id int64, p ListParams, opts ...RequestOption) iter.Seq2[*api.AutomationRun, error] {
	return listSeq(ctx, func(ctx context.Context, p ListParams, opts ...RequestOption) (*api.AutomationRunPage, error) {
		return c.AutomationRuns(ctx, id, p, opts...)
	}, p, opts)
}

// TestAutomation is the dry run: one page of the trainees the automation
// would fire for now.
func (c *Client) TestAutomation(ctx context.Context, id int64, p ListParams, opts ...RequestOption) (*api.TraineePage, error) {
	var out api.TraineePage
	return &out, c.automationCall(ctx, http.MethodPost, automationPath(id)+"/test", p.values(), nil, id, &out, opts)
}

// ListTestAutomation iterates over the dry run: the trainees the
// automation would fire for now.
func (c *Client) ListTestAutomation(ctx context.Context, id int64, p ListParams, opts ...RequestOption) iter.Seq2[*api.Trainee, error] {
	return listSeq(ctx, func(ctx context.Context, p ListParams, opts ...RequestOption) (*api.TraineePage, error) {
		return c.TestAutomation(ctx, id, p, opts...)
	}, p, opts)
}
