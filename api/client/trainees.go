package client

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/traineed/traineed/api"
)

// CreateTrainee creates a trainee (POST /public-api/trainees). See the
// Client documentation on retries of a create.
func (c *Client) CreateTrainee(ctx context.Context, r api.CreateRequest, opts ...RequestOption) (*api.Trainee, error) {
	return c.trainee(ctx, http.MethodPost, api.PathTrainees, r, 0, opts)
}

// Trainee returns one trainee, soft-deleted ones included; WithResponse
// gives its ETag, what IfMatch takes to change it only if nobody changed
// it meanwhile.
func (c *Client) Trainee(ctx context.Context, id int64, opts ...RequestOption) (*api.Trainee, error) {
	return c.trainee(ctx, http.MethodGet, traineePath(id), nil, id, opts)
}

// UpdateTrainee sends the fields p sets (null for the null ones, which
// clears phoneNumber, dateOfBirth and expirationDate; Enabled true
// restores a soft-deleted trainee) and returns the trainee after the
// change. With IfMatch(etag), a trainee changed since the read that gave
// etag is left alone and the error is a *PreconditionFailedError.
func (c *Client) UpdateTrainee(ctx context.Context, id int64, p api.TraineePatch, opts ...RequestOption) (*api.Trainee, error) {
	return c.trainee(ctx, http.MethodPut, traineePath(id), p, id, opts)
}

// DeleteTrainee soft-deletes a trainee and returns it (enabled false).
// Deleting a deleted trainee succeeds again. IfMatch as UpdateTrainee.
func (c *Client) DeleteTrainee(ctx context.Context, id int64, opts ...RequestOption) (*api.Trainee, error) {
	return c.trainee(ctx, http.MethodDelete, traineePath(id), nil, id, opts)
}

// TraineeStats returns the dashboard's counts of the company's trainees
// (GET /public-api/trainees/stats): each equals the total of the search
// api.StatsQuery names for it.
// trainerID 0 counts the company's trainees, another id that trainer's
// (trainerId).
func (c *Client) TraineeStats(ctx context.Context, trainerID int64, opts ...RequestOption) (*api.TraineeStats, error) {
	var q url.Values
	if trainerID != 0 {
		q = url.Values{"trainerId": {strconv.FormatInt(trainerID, 10)}}
	}
	var out api.TraineeStats
	if err := c.getJSON(ctx, api.PathStats, q, 0, &out, opts); err != nil {
		return nil, err
	}
	return &out, nil
}

// SearchParams are the query of GET /public-api/trainees/search. Zero
// values are not sent, so the server's defaults apply.
type SearchParams struct {
	Query  string // q: part of a name, e-mail or phone number
	Status string // live (default), active, expired, deleted, all
	Page   int    // 0-based
	Size   int    // 1..100, default 20
	Sort   string // id, name, email, expirationDate, lastTrained, optionally ",asc" or ",desc"
	// Cursor is a page's nextCursor: the search reads the page after that
	// one (Page must then be 0; Query, Status, Sort and the filters those
	// of its search).
	Cursor string
	// Max ends ListTrainees after Max trainees (0: no limit); not sent.
	Max int

	// The cockpit's filters (0 or the zero Date: not sent): expiresWithin
	// (expirationDate from today to today+N days), inactiveFor (lastTrained
	// null or N days or more ago), createdSince (created on that day or
	// later) or CreatedWithin (created on one of the last N days, today
	// included: createdSince=Nd; CreatedSince wins when both are set).
	ExpiresWithin int
	InactiveFor   int
	CreatedSince  api.Date
	CreatedWithin int
	// TrainerID keeps one trainer's trainees (trainerId; 0: not sent).
	TrainerID int64
}

func (p SearchParams) values() url.Values {
	v := url.Values{}
	if p.Query != "" {
		v.Set("q", p.Query)
	}
	if p.Status != "" {
		v.Set("status", p.Status)
	}
	if p.Page != 0 && p.Cursor == "" {
		v.Set("page", strconv.Itoa(p.Page))
	}
	if p.Size != 0 {
		v.Set("size", strconv.Itoa(p.Size))
	}
	if p.Sort != "" {
		v.Set("sort", p.Sort)
	}
	if p.Cursor != "" {
		v.Set("cursor", p.Cursor)
	}
	if p.ExpiresWithin != 0 {
		v.Set("expiresWithin", strconv.Itoa(p.ExpiresWithin)+"d")
	}
	if p.InactiveFor != 0 {
		v.Set("inactiveFor", strconv.Itoa(p.InactiveFor)+"d")
	}
	switch {
	case !p.CreatedSince.IsZero():
		v.Set("createdSince", p.CreatedSince.String())
	case p.CreatedWithin != 0:
		v.Set("createdSince", strconv.Itoa(p.CreatedWithin)+"d")
	}
	if p.TrainerID != 0 {
		v.Set("trainerId", strconv.FormatInt(p.TrainerID, 10))
	}
	return v
}

// ParseSearchQuery reads a search's query string as the API takes it
// (q=ada&status=active&expiresWithin=7d&sort=name, a leading "?" allowed)
// into SearchParams, and validates it as the server would. Paging
// parameters (page, size, limit, cursor, after) are refused: the caller
// reads every page.
func ParseSearchQuery(raw string) (SearchParams, error) {
	v, err := url.ParseQuery(strings.TrimPrefix(raw, "?"))
	if err != nil {
		return SearchParams{}, api.Invalid(api.CodeInvalidParameter, "", "not a query string: %v", err)
	}
	known := map[string]bool{"q": true, "status": true, "sort": true, "expiresWithin": true, "inactiveFor": true, "createdSince": true, "trainerId": true}
	for name := range v {
		if !known[name] {
			return SearchParams{}, api.Invalid(api.CodeInvalidParameter, name,
				"%s is not a search filter here: use q, status, sort, expiresWithin, inactiveFor, createdSince or trainerId", name)
		}
	}
	s, err := api.ParseSearch(v, api.Date{})
	if err != nil {
		return SearchParams{}, err
	}
	p := SearchParams{Query: v.Get("q"), Status: v.Get("status"), Sort: v.Get("sort"),
		ExpiresWithin: s.ExpiresWithin, InactiveFor: s.InactiveFor}
	if s.TrainerID != nil {
		p.TrainerID = *s.TrainerID
	}
	if cs := v.Get("createdSince"); cs != "" {
		if n, err := strconv.Atoi(strings.TrimSuffix(cs, "d")); err == nil && strings.HasSuffix(cs, "d") {
			p.CreatedWithin = n
		} else {
			p.CreatedSince = s.CreatedSince
		}
	}
	return p, nil
}

// Validate checks p as the server would (ParseSearch): a status, sort,
// page, size or query the server would refuse with 1012 is refused here,
// as a *ValidationError naming the parameters, before anything is sent.
func (p SearchParams) Validate() error {
	_, err := api.ParseSearch(p.values(), api.Date{})
	return err
}

// SearchTrainees returns one page of a search, with its totals.
func (c *Client) SearchTrainees(ctx context.Context, p SearchParams, opts ...RequestOption) (*api.TraineePage, error) {
	pg, _, err := c.searchPage(ctx, p, opts)
	return pg, err
}

// searchPage returns one page of a search, and whether the answer had a
// nextCursor member (a server with keyset cursors, which sends null on
// the last page).
func (c *Client) searchPage(ctx context.Context, p SearchParams, opts []RequestOption) (*api.TraineePage, bool, error) {
	body, err := c.Do(ctx, http.MethodGet, api.PathSearch, p.values(), nil, 0, opts...)
	if err != nil {
		return nil, false, err
	}
	var pg struct {
		Timestamp ResponseTimestamp `json:"timestamp"`
		Content   []*api.Trainee    `json:"content"`
		Page      json.RawMessage   `json:"page"`
	}
	var info api.PageInfo
	var cursor struct {
		NextCursor json.RawMessage `json:"nextCursor"` // "null" when sent as null
	}
	if err := json.Unmarshal(body, &pg); err != nil {
		return nil, false, fmt.Errorf("decode search response: %w", err)
	}
	if len(pg.Page) > 0 {
		if err := json.Unmarshal(pg.Page, &info); err != nil {
			return nil, false, fmt.Errorf("decode search response: %w", err)
		}
		if err := json.Unmarshal(pg.Page, &cursor); err != nil {
			return nil, false, fmt.Errorf("decode search response: %w", err)
		}
	}
	if pg.Content == nil {
		pg.Content = []*api.Trainee{}
	}
	hasCursor := len(cursor.NextCursor) > 0
	return &api.TraineePage{Timestamp: pg.Timestamp.Unix, Content: pg.Content, Page: info}, hasCursor, nil
}

// ListTrainees iterates over the trainees of a search from p.Page (or
// p.Cursor), a page read when the loop needs it, until p.Max trainees
// (0: no limit) or the last page. p.Size 0 asks for pages of p.Max
// trainees, at most 100. WithResponse's Page is the last page's, whose
// TotalElements says how many match in all (at least, when TotalExact is
// false). An error is the last pair.
//
// When the server gives a nextCursor the pages follow it (keyset paging,
// where nothing can repeat or go missing); otherwise they follow page
// numbers, and a trainee that a concurrent create shifted onto the next
// page is not yielded twice (the de-duplication remembers the last two
// pages only, so memory stays bounded however many pages there are).
func (c *Client) ListTrainees(ctx context.Context, p SearchParams, opts ...RequestOption) iter.Seq2[*api.Trainee, error] {
	return func(yield func(*api.Trainee, error) bool) {
		resp := applyOptions(opts).resp
		if p.Size == 0 {
			p.Size = api.MaxPageSize
			if p.Max > 0 && p.Max < api.MaxPageSize {
				p.Size = p.Max
			}
		}
		var seen pageDedup
		for n := 0; ; {
			pg, cursors, err := c.searchPage(ctx, p, opts)
			if err != nil {
				yield(nil, err)
				return
			}
			ts := pg.Content
			if !cursors {
				ts = seen.fresh(ts)
			}
			next := c.searchNext(p, pg, cursors)
			if p.Max > 0 && n+len(ts) > p.Max {
				ts, next = ts[:p.Max-n], true
			}
			notePage(resp, pg, pg.Page.CursorPage, next, len(ts))
			for i, t := range ts {
				n++
				if !yield(t, nil) {
					setMore(resp, i+1 < len(ts) || next)
					return
				}
			}
			if !next || p.Max > 0 && n >= p.Max {
				return
			}
			if cursors {
				p.Cursor, p.Page = *pg.Page.NextCursor, 0
			} else {
				p.Page = pg.Page.Number + 1
			}
		}
	}
}

// searchNext reports whether a page of the search p follows pg: its
// nextCursor, on a server with cursors (null on the last page); else a
// page shorter than asked for is the last, and an exact total says so too
// (an inexact one, totalExact false, is only a lower bound).
func (c *Client) searchNext(p SearchParams, pg *api.TraineePage, cursors bool) bool {
	if cursors {
		return pg.Page.NextCursor != nil && *pg.Page.NextCursor != ""
	}
	return len(pg.Content) >= p.Size && !(pg.Page.TotalExact && pg.Page.Number+1 >= pg.Page.TotalPages)
}

// pageDedup drops the trainees of a page that the page before or this
// one already had: a trainee created meanwhile shifts a numbered page.
type pageDedup struct{ prev, cur map[int64]bool }

func (d *pageDedup) fresh(ts []*api.Trainee) []*api.Trainee {
	d.prev, d.cur = d.cur, make(map[int64]bool, len(ts))
	out := ts[:0:0]
	for _, t := range ts {
		if d.prev[t.ID] || d.cur[t.ID] {
			continue
		}
		d.cur[t.ID] = true
		out = append(out, t)
	}
	return out
}

// TrackedRange is the from/to of weight history and measurements, both
// inclusive. A zero date is not sent: to defaults to the company's today,
// from to 29 days before to.
type TrackedRange struct {
	From, To api.Date
}

func (r TrackedRange) values() url.Values {
	v := url.Values{}
	if !r.From.IsZero() {
		v.Set("from", r.From.String())
	}
	if !r.To.IsZero() {
		v.Set("to", r.To.String())
	}
	return v
}

// WeightHistory returns the daily weight of a trainee over r.
func (c *Client) WeightHistory(ctx context.Context, id int64, r TrackedRange, opts ...RequestOption) (*api.WeightHistory, error) {
	var out api.WeightHistory
	if err := c.getJSON(ctx, traineePath(id)+"/weight-history", r.values(), id, &out, opts); err != nil {
		return nil, err
	}
	if out.Entries == nil {
		out.Entries = []api.WeightEntry{}
	}
	return &out, nil
}

// Steps returns a trainee's step count of each day of r that has one.
func (c *Client) Steps(ctx context.Context, id int64, r TrackedRange, opts ...RequestOption) (*api.DailySteps, error) {
	var out api.DailySteps
	if err := c.getJSON(ctx, traineePath(id)+"/steps", r.values(), id, &out, opts); err != nil {
		return nil, err
	}
	if out.Days == nil {
		out.Days = []api.StepsDay{}
	}
	return &out, nil
}

// Measurements returns a trainee's body measurements over r; typ ("" for
// every type) filters on one type such as WAIST.
func (c *Client) Measurements(ctx context.Context, id int64, r TrackedRange, typ string, opts ...RequestOption) (*api.Measurements, error) {
	v := r.values()
	if typ != "" {
		v.Set("type", typ)
	}
	var out api.Measurements
	if err := c.getJSON(ctx, traineePath(id)+"/measurements", v, id, &out, opts); err != nil {
		return nil, err
	}
	if out.Measurements == nil {
		out.Measurements = []api.Measurement{}
	}
	return &out, nil
}

// Nutrition returns what a trainee logged eating on day (zero: the
// company's today).
func (c *Client) Nutrition(ctx context.Context, id int64, day api.Date, opts ...RequestOption) (*api.Nutrition, error) {
	v := url.Values{}
	if !day.IsZero() {
		v.Set("date", day.String())
	}
	var out api.Nutrition
	if err := c.getJSON(ctx, traineePath(id)+"/nutrition", v, id, &out, opts); err != nil {
		return nil, err
	}
	if out.Meals == nil {
		out.Meals = []api.Meal{}
	}
	for i := range out.Meals {
		if out.Meals[i].Items == nil {
			out.Meals[i].Items = []api.NutritionItem{}
		}
	}
	return &out, nil
}

// AverageSteps returns a trainee's mean daily steps over the trailing 7 days.
func (c *Client) AverageSteps(ctx context.Context, id int64, opts ...RequestOption) (*api.AverageSteps, error) {
	var out api.AverageSteps
	if err := c.getJSON(ctx, traineePath(id)+"/average-steps", nil, id, &out, opts); err != nil {
		return nil, err
	}
	return &out, nil
}

// TrainerParams are the query of GET /public-api/trainers.
type TrainerParams struct {
	// Counts adds each trainer's live trainees (counts=true: the server
	// reads the company's trainees for it).
	Counts bool
}

// Trainers lists the company's trainers, lowest id first (GET
// /public-api/trainers): their ids, names, e-mail addresses and whether
// they are active. The list is not paged: one answer holds it whole.
func (c *Client) Trainers(ctx context.Context, p TrainerParams, opts ...RequestOption) ([]api.TrainerSummary, error) {
	var q url.Values
	if p.Counts {
		q = url.Values{"counts": {"true"}}
	}
	var out api.TrainerList
	if err := c.getJSON(ctx, api.PathTrainers, q, 0, &out, opts); err != nil {
		return nil, err
	}
	if out.Trainers == nil {
		out.Trainers = []api.TrainerSummary{}
	}
	return out.Trainers, nil
}

func traineePath(id int64) string { return api.PathTrainees + "/" + strconv.FormatInt(id, 10) }

func (c *Client) trainee(ctx context.Context, method, path string, body any, id int64, opts []RequestOption) (*api.Trainee, error) {
	b, err := c.Do(ctx, method, path, nil, body, id, opts...)
	if err != nil {
		return nil, err
	}
	t, _, err := DecodeTraineeEnvelope(b)
	return t, err
}

func (c *Client) getJSON(ctx context.Context, path string, q url.Values, id int64, out any, opts []RequestOption) error {
	b, err := c.Do(ctx, http.MethodGet, path, q, nil, id, opts...)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, out); err != nil {
		return fmt.Errorf("decode response of GET %s: %w", path, err)
	}
	return nil
}

// EraseTrainee erases a trainee for good (POST /trainees/{id}/erase, GDPR
// Article 17); confirm must be its e-mail address. Erasing an erased
// trainee answers its tombstone again, so a retried erase is safe.
func (c *Client) EraseTrainee(ctx context.Context, id int64, confirm string, opts ...RequestOption) (*api.ErasedTrainee, error) {
	body, err := c.Do(ctx, http.MethodPost, traineePath(id)+"/erase", nil, api.EraseRequest{Confirm: confirm}, id, opts...)
	if err != nil {
		return nil, err
	}
	var env api.ErasedEnvelope
	if err := json.Unmarshal(body, &env); err != nil || env.Erased == nil {
		return nil, fmt.Errorf("decode erase response: %v", errOr(err, "no erased member"))
	}
	return env.Erased, nil
}

// ErasedMatches asks POST /trainees/erased-check which of people name a
// trainee erased from the company (by index in people); people over
// api.MaxErasedCheck are sent in several requests.
func (c *Client) ErasedMatches(ctx context.Context, people []api.ErasedProbe, opts ...RequestOption) ([]api.ErasedMatch, error) {
	out := []api.ErasedMatch{}
	for from := 0; from < len(people); from += api.MaxErasedCheck {
		part := people[from:min(from+api.MaxErasedCheck, len(people))]
		body, err := c.Do(ctx, http.MethodPost, api.PathErasedCheck, nil, api.ErasedCheckRequest{People: part}, 0, opts...)
		if err != nil {
			return nil, err
		}
		var env api.ErasedCheckEnvelope
		if err := json.Unmarshal(body, &env); err != nil {
			return nil, fmt.Errorf("decode erased-check response: %v", err)
		}
		for _, m := range env.Matches {
			m.Index += from
			out = append(out, m)
		}
	}
	return out, nil
}

// ExportTrainee returns everything held about a trainee (GET
// /trainees/{id}/export), tracked data within r (nil bounds: all of it).
func (c *Client) ExportTrainee(ctx context.Context, id int64, r api.ExportRange, opts ...RequestOption) (*api.TraineeExport, error) {
	q := url.Values{}
	if r.From != nil {
		q.Set("from", r.From.String())
	}
	if r.To != nil {
		q.Set("to", r.To.String())
	}
	body, err := c.Do(ctx, http.MethodGet, traineePath(id)+"/export", q, nil, id, opts...)
	if err != nil {
		return nil, err
	}
	var out api.TraineeExport
	if err := json.Unmarshal(body, &out); err != nil || out.Trainee == nil {
		return nil, fmt.Errorf("decode export response: %v", errOr(err, "no trainee member"))
	}
	return &out, nil
}

func errOr(err error, msg string) any {
	if err != nil {
		return err
	}
	return msg
}
