package client

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/traineed/traineed/api"
)

// CreateTrainee creates a trainee (POST /public-api/trainees). See the
// Client documentation on retries of a create.
func (c *Client) CreateTrainee(ctx context.Context, r api.CreateRequest) (*api.Trainee, error) {
	return c.trainee(ctx, http.MethodPost, api.PathTrainees, r, 0)
}

// Trainee returns one trainee, soft-deleted ones included.
func (c *Client) Trainee(ctx context.Context, id int64) (*api.Trainee, error) {
	return c.trainee(ctx, http.MethodGet, traineePath(id), nil, id)
}

// UpdateTrainee sends the fields p sets (null for the null ones, which
// clears phoneNumber, dateOfBirth and expirationDate) and returns the
// trainee after the change.
func (c *Client) UpdateTrainee(ctx context.Context, id int64, p api.TraineePatch) (*api.Trainee, error) {
	return c.trainee(ctx, http.MethodPut, traineePath(id), p, id)
}

// DeleteTrainee soft-deletes a trainee and returns it (enabled false).
// Deleting a deleted trainee succeeds again.
func (c *Client) DeleteTrainee(ctx context.Context, id int64) (*api.Trainee, error) {
	return c.trainee(ctx, http.MethodDelete, traineePath(id), nil, id)
}

// RestoreTrainee restores a soft-deleted trainee (PUT enabled: true).
func (c *Client) RestoreTrainee(ctx context.Context, id int64) (*api.Trainee, error) {
	return c.UpdateTrainee(ctx, id, api.TraineePatch{Enabled: api.Val(true)})
}

// TraineeWithETag returns one trainee and its ETag (the quoted version
// the server sends, "" from a server without one): what UpdateTraineeIf
// takes to change it only if nobody changed it meanwhile.
func (c *Client) TraineeWithETag(ctx context.Context, id int64) (*api.Trainee, string, error) {
	return c.traineeETag(ctx, http.MethodGet, id, nil, "")
}

// UpdateTraineeIf is UpdateTrainee sent with If-Match: etag (none when
// etag is ""): when the trainee changed since the read that gave etag the
// server changes nothing and the error is a *PreconditionFailedError. It
// returns the trainee after the change and its new ETag.
func (c *Client) UpdateTraineeIf(ctx context.Context, id int64, etag string, p api.TraineePatch) (*api.Trainee, string, error) {
	return c.traineeETag(ctx, http.MethodPut, id, p, etag)
}

// DeleteTraineeIf is DeleteTrainee sent with If-Match: etag (none when "").
func (c *Client) DeleteTraineeIf(ctx context.Context, id int64, etag string) (*api.Trainee, string, error) {
	return c.traineeETag(ctx, http.MethodDelete, id, nil, etag)
}

// RestoreTraineeIf is RestoreTrainee sent with If-Match: etag (none when "").
func (c *Client) RestoreTraineeIf(ctx context.Context, id int64, etag string) (*api.Trainee, string, error) {
	return c.UpdateTraineeIf(ctx, id, etag, api.TraineePatch{Enabled: api.Val(true)})
}

func (c *Client) traineeETag(ctx context.Context, method string, id int64, body any, etag string) (*api.Trainee, string, error) {
	var extra http.Header
	if etag != "" {
		extra = http.Header{api.HeaderIfMatch: {etag}}
	}
	if body == nil && method == http.MethodPut {
		body = api.TraineePatch{}
	}
	b, hdr, err := c.do(ctx, method, traineePath(id), nil, body, id, extra)
	if err != nil {
		return nil, "", err
	}
	t, _, err := DecodeTraineeEnvelope(b)
	if err != nil {
		return nil, "", err
	}
	return t, hdr.Get(api.HeaderETag), nil
}

// TraineeStats returns the dashboard's counts of the company's trainees
// (GET /public-api/trainees/stats): each equals the total of the search
// api.StatsQuery names for it.
func (c *Client) TraineeStats(ctx context.Context) (*api.TraineeStats, error) {
	return c.TrainerStats(ctx, 0)
}

// TrainerStats is TraineeStats of one trainer's trainees (trainerId; 0:
// the company's).
func (c *Client) TrainerStats(ctx context.Context, trainerID int64) (*api.TraineeStats, error) {
	var q url.Values
	if trainerID != 0 {
		q = url.Values{"trainerId": {strconv.FormatInt(trainerID, 10)}}
	}
	var out api.TraineeStats
	if err := c.getJSON(ctx, api.PathStats, q, 0, &out); err != nil {
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

// SearchTrainees returns one page of a search.
func (c *Client) SearchTrainees(ctx context.Context, p SearchParams) (*api.TraineePage, error) {
	pg, _, err := c.searchPage(ctx, p)
	return pg, err
}

// searchPage returns one page of a search, and whether the answer had a
// nextCursor member (a server with keyset cursors, which sends null on
// the last page).
func (c *Client) searchPage(ctx context.Context, p SearchParams) (*api.TraineePage, bool, error) {
	body, err := c.Do(ctx, http.MethodGet, api.PathSearch, p.values(), nil, 0)
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

// SearchPageFunc is the PageFunc of the search p, for Walk, All and Each:
// a list's After and Limit are sent as cursor and size (their names on
// servers older than after and limit), replacing p's Cursor, Size and
// Page.
func (c *Client) SearchPageFunc(p SearchParams) PageFunc[*api.TraineePage] {
	return func(ctx context.Context, lp ListParams) (*api.TraineePage, error) {
		p.Cursor, p.Size, p.Page = lp.After, lp.Limit, lp.Page
		return c.SearchTrainees(ctx, p)
	}
}

// SearchAllTrainees follows the pages of a search from p.Page to the last
// and returns every trainee, and the page information of the last page
// read. p.Size 0 asks for pages of 100. For a large result, SearchPages
// hands over each page instead of gathering them.
func (c *Client) SearchAllTrainees(ctx context.Context, p SearchParams) ([]*api.Trainee, api.PageInfo, error) {
	return c.SearchTraineesUpTo(ctx, p, 0)
}

// SearchTraineesUpTo follows the pages of a search from p.Page until it
// has limit trainees (0: no limit) or the last page is read, and returns
// at most limit trainees and the page information of the last page read,
// whose TotalElements says how many match in all (at least, when its
// TotalExact is false). p.Size 0 asks for pages
// of limit trainees, at most 100.
func (c *Client) SearchTraineesUpTo(ctx context.Context, p SearchParams, limit int) ([]*api.Trainee, api.PageInfo, error) {
	all := []*api.Trainee{}
	last, err := c.SearchPages(ctx, p, limit, func(ts []*api.Trainee, _ api.PageInfo) error {
		all = append(all, ts...)
		return nil
	})
	if err != nil {
		return nil, api.PageInfo{}, err
	}
	return all, last, nil
}

// SearchPages follows the pages of a search from p.Page (or p.Cursor)
// and calls fn with the trainees of each page as it arrives, until it has
// handed over limit trainees (0: no limit; the last call gets only what
// is left) or the last page is read, and returns the page information of
// the last page read. fn's error stops it and is returned. p.Size 0 asks
// for pages of limit trainees, at most 100. fn may keep ts.
//
// When the server gives a nextCursor the pages follow it (keyset paging,
// where nothing can repeat or go missing); otherwise they follow page
// numbers, and a trainee that a concurrent create shifted onto the next
// page is not handed over twice (the de-duplication remembers the last
// two pages only, so memory stays bounded however many pages there are).
func (c *Client) SearchPages(ctx context.Context, p SearchParams, limit int, fn func(ts []*api.Trainee, info api.PageInfo) error) (api.PageInfo, error) {
	if p.Size == 0 {
		p.Size = 100
		if limit > 0 && limit < 100 {
			p.Size = limit
		}
	}
	var prev, cur map[int64]bool // ids of the page before and of this one
	n := 0
	for {
		pg, cursors, err := c.searchPage(ctx, p)
		if err != nil {
			return api.PageInfo{}, err
		}
		got := len(pg.Content)
		ts := pg.Content
		if !cursors {
			prev, cur = cur, make(map[int64]bool, got)
			ts = ts[:0:0]
			for _, t := range pg.Content {
				if prev[t.ID] || cur[t.ID] { // a trainee created meanwhile may shift a page
					continue
				}
				cur[t.ID] = true
				ts = append(ts, t)
			}
		}
		if limit > 0 && n+len(ts) > limit {
			ts = ts[:limit-n]
		}
		n += len(ts)
		if len(ts) > 0 {
			if err := fn(ts, pg.Page); err != nil {
				return pg.Page, err
			}
		}
		switch {
		case limit > 0 && n >= limit:
			return pg.Page, nil
		case cursors:
			// A server with cursors says null on the last page.
			if pg.Page.NextCursor == nil || *pg.Page.NextCursor == "" {
				return pg.Page, nil
			}
			p.Cursor, p.Page = *pg.Page.NextCursor, 0
			continue
		}
		// A page shorter than asked for is the last; an exact total says so
		// too. An inexact one (totalExact false) is only a lower bound.
		if got < p.Size || pg.Page.TotalExact && pg.Page.Number+1 >= pg.Page.TotalPages {
			return pg.Page, nil
		}
		p.Page = pg.Page.Number + 1
	}
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
func (c *Client) WeightHistory(ctx context.Context, id int64, r TrackedRange) (*api.WeightHistory, error) {
	var out api.WeightHistory
	if err := c.getJSON(ctx, traineePath(id)+"/weight-history", r.values(), id, &out); err != nil {
		return nil, err
	}
	if out.Entries == nil {
		out.Entries = []api.WeightEntry{}
	}
	return &out, nil
}

// Measurements returns a trainee's body measurements over r; typ ("" for
// every type) filters on one type such as WAIST.
func (c *Client) Measurements(ctx context.Context, id int64, r TrackedRange, typ string) (*api.Measurements, error) {
	v := r.values()
	if typ != "" {
		v.Set("type", typ)
	}
	var out api.Measurements
	if err := c.getJSON(ctx, traineePath(id)+"/measurements", v, id, &out); err != nil {
		return nil, err
	}
	if out.Measurements == nil {
		out.Measurements = []api.Measurement{}
	}
	return &out, nil
}

// Nutrition returns what a trainee logged eating on day (zero: the
// company's today).
func (c *Client) Nutrition(ctx context.Context, id int64, day api.Date) (*api.Nutrition, error) {
	v := url.Values{}
	if !day.IsZero() {
		v.Set("date", day.String())
	}
	var out api.Nutrition
	if err := c.getJSON(ctx, traineePath(id)+"/nutrition", v, id, &out); err != nil {
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
func (c *Client) AverageSteps(ctx context.Context, id int64) (*api.AverageSteps, error) {
	var out api.AverageSteps
	if err := c.getJSON(ctx, traineePath(id)+"/average-steps", nil, id, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// Trainers lists the company's trainers, lowest id first (GET
// /public-api/trainers): their ids, names, e-mail addresses and whether
// they are active; TrainersCounted adds their trainee counts.
func (c *Client) Trainers(ctx context.Context) ([]api.TrainerSummary, error) {
	return c.trainers(ctx, nil)
}

// TrainersCounted is Trainers with each trainer's live trainees
// (counts=true: the server reads the company's trainees for it).
func (c *Client) TrainersCounted(ctx context.Context) ([]api.TrainerSummary, error) {
	return c.trainers(ctx, url.Values{"counts": {"true"}})
}

func (c *Client) trainers(ctx context.Context, q url.Values) ([]api.TrainerSummary, error) {
	var out api.TrainerList
	if err := c.getJSON(ctx, api.PathTrainers, q, 0, &out); err != nil {
		return nil, err
	}
	if out.Trainers == nil {
		out.Trainers = []api.TrainerSummary{}
	}
	return out.Trainers, nil
}

func traineePath(id int64) string { return api.PathTrainees + "/" + strconv.FormatInt(id, 10) }

func (c *Client) trainee(ctx context.Context, method, path string, body any, id int64) (*api.Trainee, error) {
	b, err := c.Do(ctx, method, path, nil, body, id)
	if err != nil {
		return nil, err
	}
	t, _, err := DecodeTraineeEnvelope(b)
	return t, err
}

func (c *Client) getJSON(ctx context.Context, path string, q url.Values, id int64, out any) error {
	b, err := c.Do(ctx, http.MethodGet, path, q, nil, id)
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
func (c *Client) EraseTrainee(ctx context.Context, id int64, confirm string) (*api.ErasedTrainee, error) {
	body, err := c.Do(ctx, http.MethodPost, traineePath(id)+"/erase", nil, api.EraseRequest{Confirm: confirm}, id)
	if err != nil {
		return nil, err
	}
	var env api.ErasedEnvelope
	if err := json.Unmarshal(body, &env); err != nil || env.Erased == nil {
		return nil, fmt.Errorf("decode erase response: %v", errOr(err, "no erased member"))
	}
	return env.Erased, nil
}

// ExportTrainee returns everything held about a trainee (GET
// /trainees/{id}/export), tracked data within r (nil bounds: all of it).
func (c *Client) ExportTrainee(ctx context.Context, id int64, r api.ExportRange) (*api.TraineeExport, error) {
	q := url.Values{}
	if r.From != nil {
		q.Set("from", r.From.String())
	}
	if r.To != nil {
		q.Set("to", r.To.String())
	}
	body, err := c.Do(ctx, http.MethodGet, traineePath(id)+"/export", q, nil, id)
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
