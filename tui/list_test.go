package tui

import (
	"context"
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/client"
	"github.com/traineed/traineed/tui/components/layout"
	"github.com/traineed/traineed/tui/pages/list"
)

func (s *testServer) direct() *client.Client {
	return client.New(s.URL, s.Key, client.WithRetryDelays())
}

func TestFirstPageShowsTheLiveTrainees(t *testing.T) {
	s := newServer(t)
	d := newDriver(t, s.client(s.Key), Options{PageSize: 20})
	live := searchAll(t, s.direct(), client.SearchParams{Status: api.StatusLive, Sort: "id,asc"})
	if len(live) < 40 {
		t.Fatalf("demo data has %d live trainees", len(live))
	}
	d.expect(t, "Trainees", "[live]", fmt.Sprintf("20 of %d", len(live)), "ID", "Name", "E-mail", "Trainer",
		"Status", "Expires", "Trained", live[0].Name, head(live[0].Email, 10))
	// The first page, and the company's trainers, once, for their names.
	reqs := s.rec.take()
	if len(reqs) == 2 && reqs[0].Path == api.PathTrainers {
		reqs[0], reqs[1] = reqs[1], reqs[0] // the two go out together
	}
	if len(reqs) != 2 || reqs[0].Path != api.PathSearch || reqs[0].Query["size"] != "20" || reqs[0].Query["status"] != "live" ||
		reqs[1].Path != api.PathTrainers {
		t.Fatalf("requests %+v", reqs)
	}
	// The rows are the server's first page, in its order.
	for i, tr := range d.m.list.Items {
		if tr.ID != live[i].ID {
			t.Fatalf("row %d is #%d, want #%d", i, tr.ID, live[i].ID)
		}
	}
}

func TestSearchNarrowsTheList(t *testing.T) {
	s := newServer(t)
	d := newDriver(t, s.client(s.Key), Options{})
	before := d.m.list.Total
	d.press("/", "p", "a", "r", "k")
	want := searchAll(t, s.direct(), client.SearchParams{Query: "park", Sort: "id,asc"})
	if len(want) == 0 || int64(len(want)) >= before {
		t.Fatalf("%d trainees match park, of %d", len(want), before)
	}
	if got := names(d.m.list.Items); strings.Join(got, "|") != strings.Join(names(want), "|") {
		t.Fatalf("list %q, want %q", got, names(want))
	}
	for _, tr := range d.m.list.Items {
		if !strings.Contains(strings.ToLower(tr.Name+tr.Email), "park") {
			t.Errorf("%s <%s> does not match park", tr.Name, tr.Email)
		}
	}
	d.expect(t, "Ada Park", fmt.Sprintf("%d of %d", len(want), len(want)), "/ park")
	// The query was sent to the server, once per keystroke without debounce.
	var qs []string
	for _, r := range s.rec.take() {
		if r.Path == api.PathSearch {
			qs = append(qs, r.Query["q"])
		}
	}
	if strings.Join(qs, ",") != ",p,pa,par,park" {
		t.Errorf("queries %q", qs)
	}
	// enter keeps the search; esc on the list clears it.
	d.press("enter")
	d.expect(t, "/ park", "(esc clears)")
	d.press("esc")
	if d.m.list.Query != "" || d.m.list.Total != before {
		t.Fatalf("esc left query %q and %d trainees", d.m.list.Query, d.m.list.Total)
	}
}

func TestSearchByPhoneDigits(t *testing.T) {
	s := newServer(t)
	d := newDriver(t, s.client(s.Key), Options{})
	var phone string
	for _, tr := range d.m.list.Items {
		if tr.PhoneNumber != nil {
			phone = *tr.PhoneNumber
			break
		}
	}
	if phone == "" {
		t.Fatal("no demo trainee has a phone")
	}
	digits := phone[len(phone)-6:]
	d.press("/")
	d.typeText(digits)
	if len(d.m.list.Items) == 0 {
		t.Fatalf("no trainee matches %s", digits)
	}
	for _, tr := range d.m.list.Items {
		if tr.PhoneNumber == nil || !strings.Contains(*tr.PhoneNumber, digits) {
			t.Errorf("%s (%v) does not match %s", tr.Name, tr.PhoneNumber, digits)
		}
	}
}

// Typing fast sends one search, after the pause.
func TestSearchIsDebounced(t *testing.T) {
	s := newServer(t)
	d := newDriver(t, s.client(s.Key), Options{Debounce: 40_000_000}) // 40 ms
	s.rec.take()
	d.press("/")
	for _, r := range "ada" {
		d.send(kp(string(r)))
	}
	d.settle()
	var qs []string
	for _, r := range s.rec.take() {
		qs = append(qs, r.Query["q"])
	}
	if strings.Join(qs, ",") != "ada" {
		t.Fatalf("searches sent: %q, want only ada", qs)
	}
	d.expect(t, "Ada Park")
}

// A stale answer (to a query the user has typed past) is dropped.
func TestStaleSearchAnswerIsDropped(t *testing.T) {
	s := newServer(t)
	d := newDriver(t, s.client(s.Key), Options{})
	d.press("/")
	// "a" is sent; its answer is held back.
	_, cmd := d.m.Update(kp("a"))
	stale := collect(cmd)
	// "ad" is sent and answered.
	d.send(kp("d"))
	d.settle()
	got := names(d.m.list.Items)
	dropped := d.m.Dropped
	// Now the answer to "a" arrives: it must change nothing.
	for _, msg := range stale {
		d.send(msg)
	}
	d.settle()
	if d.m.Dropped != dropped+1 {
		t.Fatalf("dropped %d answers, want %d", d.m.Dropped, dropped+1)
	}
	if after := names(d.m.list.Items); strings.Join(after, "|") != strings.Join(got, "|") {
		t.Fatalf("the stale answer replaced the list: %q, was %q", after, got)
	}
	for _, tr := range d.m.list.Items {
		if !strings.Contains(strings.ToLower(tr.Name+tr.Email), "ad") {
			t.Errorf("%s shows for query ad", tr.Name)
		}
	}
}

func TestPagingLoadsMoreAsTheCursorNearsTheEnd(t *testing.T) {
	s := newServer(t)
	d := newDriver(t, s.client(s.Key), Options{PageSize: 10})
	d.press("5") // all
	all := searchAll(t, s.direct(), client.SearchParams{Status: api.StatusAll, Sort: "id,asc"})
	first := len(d.m.list.Items)
	if first >= len(all) || first%10 != 0 {
		t.Fatalf("%d trainees loaded at first, of %d", first, len(all))
	}
	d.expect(t, fmt.Sprintf("%d of %d", first, len(all)))
	s.rec.take()
	for i := 0; i < 20 && len(d.m.list.Items) < len(all); i++ {
		d.press("end")
	}
	if len(d.m.list.Items) != len(all) {
		t.Fatalf("loaded %d of %d", len(d.m.list.Items), len(all))
	}
	for i, tr := range d.m.list.Items {
		if tr.ID != all[i].ID {
			t.Fatalf("row %d is #%d, want #%d", i, tr.ID, all[i].ID)
		}
	}
	// Each page was asked for once, in order.
	var pages []string
	for _, r := range s.rec.take() {
		pages = append(pages, r.Query["page"])
	}
	var want []string
	for p := first / 10; p*10 < len(all); p++ {
		want = append(want, fmt.Sprint(p))
	}
	if strings.Join(pages, ",") != strings.Join(want, ",") {
		t.Fatalf("pages read %q, want %q", pages, want)
	}
	d.press("end")
	d.expect(t, fmt.Sprintf("%d of %d", len(all), len(all)), head(all[len(all)-1].Name, 10))
}

func TestStatusTabs(t *testing.T) {
	s := newServer(t)
	d := newDriver(t, s.client(s.Key), Options{PageSize: 100})
	for _, c := range []struct {
		key, status string
	}{{"tab", "active"}, {"tab", "expired"}, {"tab", "deleted"}, {"tab", "all"}, {"shift+tab", "deleted"}, {"1", "live"}} {
		d.press(c.key)
		want := searchAll(t, s.direct(), client.SearchParams{Status: c.status, Sort: "id,asc"})
		if len(want) == 0 {
			t.Fatalf("no %s trainees in the demo data", c.status)
		}
		d.expect(t, "["+c.status+"]", fmt.Sprintf("%d of %d", len(want), len(want)))
		for _, tr := range d.m.list.Items {
			if !list.MatchesStatus(tr, c.status, testToday) {
				t.Errorf("%s: %s is %s", c.status, tr.Name, tr.Status(testToday))
			}
		}
	}
}

func TestSortCyclesColumnsAndDirection(t *testing.T) {
	s := newServer(t)
	d := newDriver(t, s.client(s.Key), Options{PageSize: 100})
	s.rec.take()
	d.press("s")
	d.expect(t, "Name ▲", "sort: name ▲")
	want := searchAll(t, s.direct(), client.SearchParams{Sort: "name,asc"})
	if got := names(d.m.list.Items); strings.Join(got, "|") != strings.Join(names(want), "|") {
		t.Fatalf("sorted by name: %q\nwant %q", got, names(want))
	}
	d.press("o")
	d.expect(t, "Name ▼", "sort: name ▼")
	want = searchAll(t, s.direct(), client.SearchParams{Sort: "name,desc"})
	if d.m.list.Items[0].ID != want[0].ID {
		t.Fatalf("first by name desc is %s, want %s", d.m.list.Items[0].Name, want[0].Name)
	}
	d.press("s", "s")
	d.expect(t, "Expires ▲", "sort: expires ▲")
	var sorts []string
	for _, r := range s.rec.take() {
		sorts = append(sorts, r.Query["sort"])
	}
	if strings.Join(sorts, " ") != "name,asc name,desc email,asc expirationDate,asc" {
		t.Fatalf("sorts sent %q", sorts)
	}
}

// G goes to the real last trainee: the pages not read yet are read, one
// after the other, and the cursor follows to the end.
func TestBottomLoadsToTheRealEnd(t *testing.T) {
	s := newServer(t)
	d := newDriver(t, s.client(s.Key), Options{PageSize: 10})
	all := searchAll(t, s.client(s.Key), client.SearchParams{Status: "live", Sort: "id,asc"})
	if len(all) <= 20 {
		t.Fatalf("%d trainees: too few for the test", len(all))
	}
	d.press("G")
	if got, want := d.m.list.Selected().ID, all[len(all)-1].ID; got != want {
		t.Fatalf("G selected %d, the last trainee is %d (%d of %d loaded)", got, want, len(d.m.list.Items), len(all))
	}
	d.expect(t, fmt.Sprintf("%d of %d", len(all), len(all)), head(all[len(all)-1].Name, 10))
	d.expectNot(t, "Loading to the last")
	// g and G again: no request once everything is loaded.
	s.rec.take()
	d.press("g", "G")
	if n := len(s.rec.take()); n != 0 {
		t.Errorf("%d requests with every page loaded", n)
	}
}

// Trainers show by name in the list and on the profile, read once.
func TestTrainersShowByName(t *testing.T) {
	s := newServer(t)
	d := newDriver(t, s.client(s.Key), Options{})
	d.send(tea.WindowSizeMsg{Width: 120, Height: 30})
	d.settle()
	ts, err := s.direct().Trainers(context.Background(), client.TrainerParams{})
	if err != nil || len(ts) == 0 {
		t.Fatalf("trainers %v %v", ts, err)
	}
	names := map[int64]string{}
	for _, tr := range ts {
		names[tr.ID] = tr.Name
	}
	first := d.m.list.Items[0]
	d.expect(t, names[*first.TrainerID])
	d.expectNot(t, fmt.Sprintf(" #%d ", *first.TrainerID))
	d.press("enter")
	d.expect(t, fmt.Sprintf("%s (#%d)", names[*first.TrainerID], *first.TrainerID))
	n := 0
	for _, r := range s.rec.take() {
		if r.Path == api.PathTrainers {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d trainer reads", n)
	}
}

// boundedClient answers like a server that counts a search's matches only
// up to api.Search.CountLimit: past it the total is a lower bound.
type boundedClient struct{ *pagesClient }

func (boundedClient) Trainers(context.Context, client.TrainerParams, ...client.RequestOption) ([]api.TrainerSummary, error) {
	return nil, nil
}

func (c boundedClient) SearchTrainees(ctx context.Context, p client.SearchParams, _ ...client.RequestOption) (*api.TraineePage, error) {
	pg, err := c.pagesClient.SearchTrainees(ctx, p)
	if err != nil {
		return nil, err
	}
	s := api.Search{Page: p.Page, Size: p.Size}
	pg.Page = s.PageInfo(min(int64(len(c.all)), s.CountLimit()))
	return pg, nil
}

// TestListInexactTotal: a company past the exact-count bound shows its
// total as a lower bound, and the list still loads to the last trainee.
func TestListInexactTotal(t *testing.T) {
	d := newDriver(t, boundedClient{newPagesClient(api.ExactTotalBound + 500)}, Options{PageSize: 100})
	d.send(tea.WindowSizeMsg{Width: 120, Height: 30})
	d.expect(t, fmt.Sprintf("100 of %d+", api.ExactTotalBound+1))
	for range 200 {
		if len(d.m.list.Items) == api.ExactTotalBound+500 {
			break
		}
		d.press("end")
	}
	d.expect(t, fmt.Sprintf("%[1]d of %[1]d", api.ExactTotalBound+500), fmt.Sprintf("Trainee %d Example", api.ExactTotalBound+499))
	d.expectNot(t, fmt.Sprintf("%d+", api.ExactTotalBound+500))
}

// At 80 columns every tab's footer fits whole: hints are dropped, the
// line is never cut with "…", and it ends with q quit.
func TestListFooterFitsEachTabAt80(t *testing.T) {
	s := newServer(t)
	d := newDriver(t, s.client(s.Key), Options{NoColor: true})
	d.send(tea.WindowSizeMsg{Width: 80, Height: 24})
	for _, tab := range []string{"1", "2", "3", "4", "5"} {
		d.press(tab)
		for _, marked := range []bool{false, true} {
			if marked {
				d.press("space")
			}
			lines := strings.Split(strings.TrimRight(d.screen(), "\n"), "\n")
			footer := strings.TrimRight(lines[len(lines)-1], " ")
			if strings.Contains(footer, "…") || !strings.HasSuffix(footer, "q quit") {
				t.Errorf("tab %s (marked %v): footer %q is cut or lacks q quit", tab, marked, footer)
			}
			if marked {
				d.press("esc")
			}
		}
	}
}

// Marks are dropped when the tab, the filter or the search changes: a
// bulk action never acts on trainees the list does not show marked.
func TestMarksClearOnViewChange(t *testing.T) {
	s := newServer(t)
	d := newDriver(t, s.client(s.Key), Options{NoColor: true})
	d.send(tea.WindowSizeMsg{Width: 100, Height: 30})
	d.press("4", "space")
	d.expect(t, "1 marked")
	d.press("1")
	d.expectNot(t, "1 marked")
	// The note is on screen once the new view has loaded (settled), not
	// cleared by the reload moving the cursor to another trainee.
	d.expect(t, "1 mark dropped: the view changed.")
	d.press(":")
	d.typeText("extend 30")
	d.press("enter")
	d.expect(t, "Nothing is marked")
	if d.m.modal != nil {
		t.Fatalf("a bulk question opened over no visible mark:\n%s", d.screen())
	}
	d.press("space")
	d.expect(t, "1 marked")
	d.press("/")
	d.typeText("a")
	d.press("enter")
	d.expectNot(t, "1 marked")
	d.expect(t, "1 mark dropped: the view changed.")
	if len(d.m.list.Marks) != 0 {
		t.Errorf("%d marks survive a search", len(d.m.list.Marks))
	}
}

// With a read-only key, x is refused at the key, with the read-only
// message: the bulk command line does not open.
func TestReadOnlyActRefusedAtTheKey(t *testing.T) {
	s := newServer(t)
	d := newDriver(t, s.client(s.Key), Options{NoColor: true, ReadOnly: true})
	d.send(tea.WindowSizeMsg{Width: 100, Height: 30})
	d.press("space", "x")
	d.expect(t, "This API key is read-only: changing trainees needs a full key.")
	if d.m.modal != nil {
		t.Fatalf("x opened %T with a read-only key:\n%s", d.m.modal, d.screen())
	}
}

// Counts are singular for one, plural otherwise.
func TestPlural(t *testing.T) {
	for _, c := range []struct {
		n    int
		noun string
		want string
	}{{0, "trainee", "0 trainees"}, {1, "trainee", "1 trainee"}, {2, "marked trainee", "2 marked trainees"},
		{1, "webhook", "1 webhook"}, {3, "automation", "3 automations"}, {2, "field", "2 fields"}, {1, "day", "1 day"}} {
		if got := layout.Plural(c.n, c.noun); got != c.want {
			t.Errorf("plural(%d, %q) = %q, want %q", c.n, c.noun, got, c.want)
		}
	}
}
