package client

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/traineed/traineed/api"
)

// Company administration (admin keys): keys, trainers and the company's
// settings.

func keyPath(id int64) string     { return api.PathKeys + "/" + strconv.FormatInt(id, 10) }
func trainerPath(id int64) string { return api.PathTrainers + "/" + strconv.FormatInt(id, 10) }

// KeyListParams are the query of GET /public-api/keys: a page, and a state
// ("" is every state but revoked, "all" every one).
type KeyListParams struct {
	ListParams
	State string
}

// KeyPage returns one page of the company's keys.
func (c *Client) KeyPage(ctx context.Context, p KeyListParams, opts ...RequestOption) (*api.KeyList, error) {
	q := p.values()
	if p.State != "" {
		q.Set("state", p.State)
	}
	var out api.KeyList
	if err := c.getJSON(ctx, api.PathKeys, q, 0, &out, opts); err != nil {
		return nil, err
	}
	return &out, nil
}

// ListKeys iterates over the company's keys of p.State ("": all but
// revoked).
func (c *Client) ListKeys(ctx context.Context, p KeyListParams, opts ...RequestOption) iter.Seq2[*api.APIKey, error] {
	return listSeq(ctx, func(ctx context.Context, lp ListParams, opts ...RequestOption) (*api.KeyList, error) {
		return c.KeyPage(ctx, KeyListParams{ListParams: lp, State: p.State}, opts...)
	}, p.ListParams, opts)
}

// Key returns one key of the company.
func (c *Client) Key(ctx context.Context, id int64, opts ...RequestOption) (*api.APIKey, error) {
	env, err := c.keyCall(ctx, http.MethodGet, keyPath(id), nil, opts)
	if err != nil {
		return nil, err
	}
	return env.Key, nil
}

// CreateKey makes a key; the envelope's Secret is the key, shown this once.
func (c *Client) CreateKey(ctx context.Context, k api.NewKey, opts ...RequestOption) (*api.KeyEnvelope, error) {
	return c.keyCall(ctx, http.MethodPost, api.PathKeys, k, opts)
}

// UpdateKey changes a key's name, expiry, state or scope.
func (c *Client) UpdateKey(ctx context.Context, id int64, p api.KeyPatch, opts ...RequestOption) (*api.APIKey, error) {
	env, err := c.keyCall(ctx, http.MethodPatch, keyPath(id), p, opts)
	if err != nil {
		return nil, err
	}
	return env.Key, nil
}

// RotateKey gives a key a new secret (the envelope's Secret); the old one
// keeps working for overlap (nil: the server's default, 24 h), until the
// key's PreviousSecretExpiresAt.
func (c *Client) RotateKey(ctx context.Context, id int64, overlap *time.Duration, opts ...RequestOption) (*api.KeyEnvelope, error) {
	var body any
	if overlap != nil {
		secs := int64(*overlap / time.Second)
		body = api.KeyRotation{OverlapSeconds: &secs}
	}
	return c.keyCall(ctx, http.MethodPost, keyPath(id)+"/rotate", body, opts)
}

// RevokeKey revokes a key: refused from the next request on, for good.
func (c *Client) RevokeKey(ctx context.Context, id int64, opts ...RequestOption) (*api.APIKey, error) {
	env, err := c.keyCall(ctx, http.MethodDelete, keyPath(id), nil, opts)
	if err != nil {
		return nil, err
	}
	return env.Key, nil
}

func (c *Client) keyCall(ctx context.Context, method, path string, body any, opts []RequestOption) (*api.KeyEnvelope, error) {
	var out api.KeyEnvelope
	if err := c.call(ctx, method, path, nil, body, &out, opts); err != nil {
		return nil, err
	}
	return &out, nil
}

// Trainer returns one trainer of the company.
func (c *Client) Trainer(ctx context.Context, id int64, opts ...RequestOption) (*api.TrainerSummary, error) {
	return c.trainerCall(ctx, http.MethodGet, trainerPath(id), nil, opts)
}

// CreateTrainer adds a trainer.
func (c *Client) CreateTrainer(ctx context.Context, t api.NewTrainer, opts ...RequestOption) (*api.TrainerSummary, error) {
	return c.trainerCall(ctx, http.MethodPost, api.PathTrainers, t, opts)
}

// UpdateTrainer changes a trainer: name, e-mail, active (false with
// ReassignTo deactivates and hands the trainees over).
func (c *Client) UpdateTrainer(ctx context.Context, id int64, p api.TrainerPatch, opts ...RequestOption) (*api.TrainerSummary, error) {
	return c.trainerCall(ctx, http.MethodPatch, trainerPath(id), p, opts)
}

// DeactivateTrainer deactivates a trainer, handing its trainees to
// reassignTo (nil: refused with 409 1033 while it has some); the envelope
// says how many moved (Moved) and which of its keys were disabled
// (DisabledKeys).
func (c *Client) DeactivateTrainer(ctx context.Context, id int64, reassignTo *int64, opts ...RequestOption) (*api.TrainerEnvelope, error) {
	off := false
	var out api.TrainerEnvelope
	if err := c.call(ctx, http.MethodPatch, trainerPath(id), nil, api.TrainerPatch{Active: &off, ReassignTo: reassignTo}, &out, opts); err != nil {
		return nil, err
	}
	return &out, nil
}

// ReassignTrainees moves every trainee of trainer from to trainer to.
func (c *Client) ReassignTrainees(ctx context.Context, from, to int64, opts ...RequestOption) (*api.ReassignResult, error) {
	var out api.ReassignResult
	if err := c.call(ctx, http.MethodPost, trainerPath(from)+"/reassign", nil, api.Reassignment{To: to}, &out, opts); err != nil {
		return nil, err
	}
	return &out, nil
}

func (c *Client) trainerCall(ctx context.Context, method, path string, body any, opts []RequestOption) (*api.TrainerSummary, error) {
	var out api.TrainerEnvelope
	if err := c.call(ctx, method, path, nil, body, &out, opts); err != nil {
		return nil, err
	}
	return out.Trainer, nil
}

// Company returns the caller's company: name and time zone.
func (c *Client) Company(ctx context.Context, opts ...RequestOption) (*api.Company, error) {
	return c.companyCall(ctx, http.MethodGet, nil, opts)
}

// UpdateCompany changes the company's name or time zone.
func (c *Client) UpdateCompany(ctx context.Context, p api.CompanyPatch, opts ...RequestOption) (*api.Company, error) {
	return c.companyCall(ctx, http.MethodPatch, p, opts)
}

func (c *Client) companyCall(ctx context.Context, method string, body any, opts []RequestOption) (*api.Company, error) {
	var out api.CompanyEnvelope
	if err := c.call(ctx, method, api.PathCompany, nil, body, &out, opts); err != nil {
		return nil, err
	}
	return out.Company, nil
}

// call sends one request and decodes its JSON answer into out.
func (c *Client) call(ctx context.Context, method, path string, q url.Values, body, out any, opts []RequestOption) error {
	b, err := c.Do(ctx, method, path, q, body, 0, opts...)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, out); err != nil {
		return fmt.Errorf("decode response of %s %s: %w", method, path, err)
	}
	return nil
}
