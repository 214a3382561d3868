package store

import (
	"context"
	"fmt"
	"strings"

	"github.com/uptrace/bun"

	"github.com/traineed/traineed/api"
)

// sortColumns maps the API's sort keys to columns of traineeQuery.
var sortColumns = map[string]string{
	api.SortID:             "t.id",
	api.SortName:           "u.search_name",
	api.SortEmail:          "u.email",
	api.SortExpirationDate: "t.expiration_date",
	api.SortLastTrained:    "t.last_trained",
}

// likeEscaper escapes LIKE's wildcards and its escape character '\'.
var likeEscaper = strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)

// SearchTrainees returns one page of the company's trainees and how many
// match in all (see api.Search).
func (s *Store) SearchTrainees(ctx context.Context, companyID int64, q api.Search) ([]*api.Trainee, int64, error) {
	col, ok := sortColumns[q.Sort]
	if q.Sort == "" {
		col, ok = sortColumns[api.SortID], true
	}
	if !ok {
		return nil, 0, fmt.Errorf("store: unknown sort %q", q.Sort)
	}
	if q.Size <= 0 || q.Page < 0 {
		return nil, 0, fmt.Errorf("store: invalid page %d or size %d", q.Page, q.Size)
	}

	filter := func(sel *bun.SelectQuery) (*bun.SelectQuery, error) {
		switch q.Status {
		case api.StatusLive, "":
			sel = sel.Where("t.enabled")
		case api.StatusActive:
			sel = sel.Where("t.enabled AND (t.expiration_date IS NULL OR t.expiration_date > ?)", q.Today.Int())
		case api.StatusExpired:
			sel = sel.Where("t.enabled AND t.expiration_date <= ?", q.Today.Int())
		case api.StatusDeleted:
			sel = sel.Where("NOT t.enabled")
		case api.StatusAll:
		default:
			return nil, fmt.Errorf("store: unknown status %q", q.Status)
		}
		if q.Query != "" {
			pattern := "%" + likeEscaper.Replace(strings.ToLower(q.Query)) + "%"
			if q.Digits != "" {
				sel = sel.Where(`(u.search_name LIKE ? ESCAPE '\' OR u.email LIKE ? ESCAPE '\' OR u.phone LIKE ? ESCAPE '\')`,
					pattern, pattern, "%"+likeEscaper.Replace(q.Digits)+"%")
			} else {
				sel = sel.Where(`(u.search_name LIKE ? ESCAPE '\' OR u.email LIKE ? ESCAPE '\')`, pattern, pattern)
			}
		}
		return sel, nil
	}

	// The count needs the users only to match q.
	count := s.traineeScope(s.db, companyID)
	if q.Query != "" {
		count = count.Join("JOIN users AS u ON u.id = t.user_id")
	}
	count, err := filter(count)
	if err != nil {
		return nil, 0, err
	}
	total, err := count.Count(ctx)
	if err != nil {
		return nil, 0, err
	}
	offset := int64(q.Page) * int64(q.Size)
	if total == 0 || offset >= total {
		return []*api.Trainee{}, total, nil
	}

	sel, err := filter(s.traineeQuery(s.db, companyID))
	if err != nil {
		return nil, 0, err
	}
	dir := "ASC"
	if q.Desc {
		dir = "DESC"
	}
	if col == "t.id" {
		sel = sel.OrderExpr("t.id " + dir)
	} else {
		// Nulls last in both directions; ties by id so pages never overlap.
		sel = sel.OrderExpr(col + " " + dir + " NULLS LAST").OrderExpr("t.id ASC")
	}
	var rows []traineeRow
	if err := sel.Limit(int64(q.Size)).Offset(offset).Scan(ctx, &rows); err != nil {
		return nil, 0, err
	}
	out := make([]*api.Trainee, len(rows))
	for i := range rows {
		out[i] = rows[i].toAPI()
	}
	return out, total, nil
}
