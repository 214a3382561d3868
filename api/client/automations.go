package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"

	"github.com/traineed/traineed/api"
)

// The automations resource. An automation id of another company is a
// *TraineeNotFoundError whose Resource is "automation".

func automationPath(id int64) string { return api.PathAutomations + "/" + strconv.FormatInt(id, 10) }

// automationCall sends one request about automation id (0 for none) and
// decodes the 2xx body into out.
func (c *Client) automationCall(ctx context.Context, method, path string, q url.Values, body any, id int64, out any) error {
	b, err := c.Do(ctx, method, path, q, body, id)
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

func (c *Client) automation(ctx context.Context, method, path string, body any, id int64) (*api.Automation, error) {
	var env api.AutomationEnvelope
	if err := c.automationCall(ctx, method, path, nil, body, id, &env); err != nil {
		return nil, err
	}
	if env.Automation == nil {
		return nil, fmt.Errorf("decode response of %s %s: no automation", method, path)
	}
	return env.Automation, nil
}

// Automations returns one page of the company's automations, by id.
func (c *Client) Automations(ctx context.Context, p ListParams) (*api.AutomationPage, error) {
	var out api.AutomationPage
	return &out, c.automationCall(ctx, http.MethodGet, api.PathAutomations, p.values(), nil, 0, &out)
}

// AllAutomations reads every page of the company's automations.
func (c *Client) AllAutomations(ctx context.Context) ([]*api.Automation, error) {
	return All(ctx, c.Automations, ListParams{})
}

// Automation returns one automation.
func (c *Client) Automation(ctx context.Context, id int64) (*api.Automation, error) {
	return c.automation(ctx, http.MethodGet, automationPath(id), nil, id)
}

// CreateAutomation creates an automation from a body (an
// api.AutomationInput or raw JSON); a WEBHOOK's result carries its secret.
func (c *Client) CreateAutomation(ctx context.Context, body any) (*api.Automation, error) {
	return c.automation(ctx, http.MethodPost, api.PathAutomations, body, 0)
}

// UpdateAutomation sends the members body sets, merged by the server onto
// the automation.
func (c *Client) UpdateAutomation(ctx context.Context, id int64, body any) (*api.Automation, error) {
	return c.automation(ctx, http.MethodPut, automationPath(id), body, id)
}

// SetAutomationEnabled enables or disables an automation.
func (c *Client) SetAutomationEnabled(ctx context.Context, id int64, enabled bool) (*api.Automation, error) {
	return c.UpdateAutomation(ctx, id, map[string]bool{"enabled": enabled})
}

// DeleteAutomation deletes an automation and returns it as it was.
func (c *Client) DeleteAutomation(ctx context.Context, id int64) (*api.Automation, error) {
	return c.automation(ctx, http.MethodDelete, automationPath(id), nil, id)
}

// AutomationRuns returns one page of an automation's runs, newest first.
func (c *Client) AutomationRuns(ctx context.Context, id int64, p ListParams) (*api.AutomationRunPage, error) {
	var out api.AutomationRunPage
	return &out, c.automationCall(ctx, http.MethodGet, automationPath(id)+"/runs", p.values(), nil, id, &out)
}

// TestAutomation is the dry run: one page of the trainees the automation
// would fire for now.
func (c *Client) TestAutomation(ctx context.Context, id int64, p ListParams) (*api.TraineePage, error) {
	var out api.TraineePage
	return &out, c.automationCall(ctx, http.MethodPost, automationPath(id)+"/test", p.values(), nil, id, &out)
}
