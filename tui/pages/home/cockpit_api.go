package home

import (
	"context"

	"github.com/traineed/traineed/tui/internal/common"
)

// loadCounts reads the dashboard's numbers (GET /trainees/stats), of one
// trainer's trainees (trainerId; 0: the company's).
func loadCounts(ctx context.Context, c common.Client, trainerID int64) (homeCounts, error) {
	s, err := c.TrainerStats(ctx, trainerID)
	if err != nil {
		return homeCounts{-1, -1, -1, -1, -1, -1, -1}, err
	}
	return homeCounts{s.Active, s.Expiring7, s.Expiring30, s.Expired, s.Inactive14, s.New7, s.Deleted}, nil
}
