package store

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/traineed/traineed/api"
)

// cockpitCond is the condition of a search's cockpit filters (issue 28)
// over trainees as t, "" for none: expiresWithin, inactiveFor and
// createdSince (see api.Search), and its trainer (issue 34).
func cockpitCond(q api.Search) (string, []any) {
	var (
		conds []string
		args  []any
	)
	if q.ExpiresWithin > 0 {
		conds = append(conds, "t.expiration_date >= ? AND t.expiration_date <= ?")
		args = append(args, q.Today.Int(), q.Today.AddDays(q.ExpiresWithin).Int())
	}
	if q.InactiveFor > 0 {
		// Never trained counts from the day the trainee was created: one
		// created in the last N days is not inactive for N days yet.
		conds = append(conds, "(t.last_trained <= ? OR t.last_trained IS NULL AND t.created_at < ?)")
		args = append(args, q.Today.AddDays(-q.InactiveFor).Int(), dayStart(q, q.Today.AddDays(1-q.InactiveFor)))
	}
	if !q.CreatedSince.IsZero() {
		conds = append(conds, "t.created_at >= ?")
		args = append(args, createdFrom(q))
	}
	if q.TrainerID != nil {
		conds = append(conds, "t.trainer_id = ?")
		args = append(args, *q.TrainerID)
	}
	return strings.Join(conds, " AND "), args
}

// createdFrom is the first instant of q.CreatedSince in q.Zone, in UTC
// (as the store writes times).
func createdFrom(q api.Search) time.Time { return dayStart(q, q.CreatedSince) }

// dayStart is the first instant of day d in q.Zone, in UTC.
func dayStart(q api.Search, d api.Date) time.Time {
	loc := q.Zone
	if loc == nil {
		loc = time.UTC
	}
	return time.Date(d.Year, d.Month, d.Day, 0, 0, 0, 0, loc).UTC()
}

// hasFilters reports whether q sets a cockpit filter or a trainer.
func hasFilters(q api.Search) bool {
	return q.ExpiresWithin > 0 || q.InactiveFor > 0 || !q.CreatedSince.IsZero() || q.TrainerID != nil
}

// TraineeStats counts the company's trainees for the dashboard (see
// api.TraineeStats) in one statement, one pass over the company's
// trainees: each count is the condition of its search (searchCond, the
// same as SearchTrainees uses), so that a count always equals its search's
// exact total. Migration 000011 gives PostgreSQL a covering index for it
// (trainees_company_stats_idx); on a million cached trainees the planner
// still chose a parallel sequential scan, and the forced index-only scan
// cost about as much CPU (docs/performance.md).
func (s *Store) TraineeStats(ctx context.Context, companyID int64, trainerID *int64, today api.Date, loc *time.Location) (*api.TraineeStats, error) {
	searches := api.StatsSearches(today)
	names := make([]string, 0, len(searches))
	for name := range searches {
		names = append(names, name)
	}
	slices.Sort(names)
	sel := s.traineeScope(s.db, companyID)
	counts := make([]int, len(names))
	dest := make([]any, len(names))
	for i, name := range names {
		q := searches[name]
		q.Zone, q.TrainerID = loc, trainerID
		cond, args, err := statsCond(q)
		if err != nil {
			return nil, err
		}
		sel = sel.ColumnExpr("count(*) FILTER (WHERE "+cond+")", args...)
		dest[i] = &counts[i]
	}
	if trainerID != nil {
		// Each count holds the trainer's condition already; in the WHERE
		// too, it lets the trainer's index serve a trainer's dashboard
		// instead of a walk of the whole company (TestQueryPlans).
		sel = sel.Where("t.trainer_id = ?", *trainerID)
	}
	if err := sel.Scan(ctx, dest...); err != nil {
		return nil, dbError(err)
	}
	out := &api.TraineeStats{}
	for i, name := range names {
		out.Set(name, counts[i])
	}
	return out, nil
}

// statsCond is searchCond's condition for a count: the same conjuncts
// with the filter's first, which rules out most rows of a big company
// before the status's (expiresWithin: a few days of expiration dates
// among a million trainees); "TRUE" for none.
func statsCond(q api.Search) (string, []any, error) {
	status, sargs, err := statusWhere(q)
	if err != nil {
		return "", nil, err
	}
	if q.Query != "" {
		return "", nil, errors.New("store: a count has no q")
	}
	f, args := cockpitCond(q)
	var conds []string
	if f != "" {
		conds = append(conds, "("+f+")")
	}
	if status != "" {
		conds = append(conds, "("+status+")")
		args = append(args, sargs...)
	}
	if len(conds) == 0 {
		return "TRUE", nil, nil
	}
	return strings.Join(conds, " AND "), args, nil
}
