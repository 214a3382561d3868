package tui

import (
	"context"
	"errors"

	"github.com/traineed/traineed/api/client"
)

// loadCounts reads the dashboard's numbers (GET /trainees/stats), of one
// trainer's trainees (trainerId; 0: the company's).
func loadCounts(ctx context.Context, c Client, trainerID int64) (homeCounts, error) {
	s, err := c.TraineeStats(ctx, trainerID)
	if err != nil {
		return homeCounts{-1, -1, -1, -1, -1, -1, -1}, err
	}
	return homeCounts{s.Active, s.Expiring7, s.Expiring30, s.Expired, s.Inactive14, s.New7, s.Deleted}, nil
}

// apply puts the filter in a search's parameters.
func (f listFilter) apply(p *client.SearchParams) {
	p.ExpiresWithin, p.InactiveFor, p.CreatedWithin = f.expiresWithin, f.inactiveFor, f.createdWithin
}

// withIdempotencyKey makes the requests of ctx carry key as their
// Idempotency-Key.
func withIdempotencyKey(ctx context.Context, key string) context.Context {
	return client.WithIdempotencyKey(ctx, key)
}

// isPreconditionFailed reports whether err is a 412: the trainee changed
// since the version the request named.
func isPreconditionFailed(err error) bool {
	var pf *client.PreconditionFailedError
	return errors.As(err, &pf)
}

// errorCode is the API's errorCode of a refused request (0: none).
func errorCode(err error) int {
	var rej *client.RejectedError
	if errors.As(err, &rej) {
		return rej.ErrorCode
	}
	return 0
}
