package tui

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/client"
	"github.com/traineed/traineed/tui/internal/common"
)

// failOnce is the real client, but its first update of one trainee fails
// before anything is sent (the injected failure).
type failOnce struct {
	common.Client
	id     int64
	mu     sync.Mutex
	failed bool
	calls  map[int64]int // updates sent, by trainee
}

func (f *failOnce) UpdateTrainee(ctx context.Context, id int64, p api.TraineePatch, opts ...client.RequestOption) (*api.Trainee, error) {
	f.mu.Lock()
	if id == f.id && !f.failed {
		f.failed = true
		f.mu.Unlock()
		return nil, errors.New("injected failure: the connection dropped")
	}
	f.calls[id]++
	f.mu.Unlock()
	return f.Client.UpdateTrainee(ctx, id, p, opts...)
}

// A bulk action over 500 marked trainees with one injected failure: the
// question names the count, 499 are extended once, the failure is listed
// with its reason, and r sends the failed one again, and only it: no
// trainee is changed twice.
func TestBulkExtendOverFiveHundredWithOneFailure(t *testing.T) {
	s := newServer(t)
	direct := s.direct()
	today := testToday
	ids := createBulkload(t, direct, 500, today)
	victim := ids[123]
	fc := &failOnce{Client: s.client(s.Key), id: victim, calls: map[int64]int{}}
	d := newDriver(t, fc, Options{NoColor: true, PageSize: 100})
	d.send(tea.WindowSizeMsg{Width: 100, Height: 30})
	d.press("/")
	d.typeText("Bulkload")
	d.press("enter", "ctrl+a")
	d.expect(t, "500 marked", "Marked all 500 trainees")
	d.press(":")
	d.typeText("extend 30")
	d.press("enter")
	d.expect(t, "500 marked trainees: extend the expiration by 30 days?")
	d.press("y")
	d.expect(t, "499 of 500 trainees done", "1 failed", "injected failure: the connection dropped")
	if row := lineWith(d.screen(), "injected failure"); !strings.HasPrefix(row, fmt.Sprint(victim)+" ") {
		t.Errorf("the failure's row is not trainee %d's: %q", victim, row)
	}
	if got := len(d.m.list.Marks); got != 1 {
		t.Errorf("%d trainees stay marked, want the failed one", got)
	}
	check := func(when string, applied int) {
		t.Helper()
		checkExtended(t, direct, today, api.DateOf(testToday.Time().AddDate(0, 0, 30)), when, applied)
	}
	check("after the run", 499)

	d.press("r")
	d.expect(t, "500 of 500 trainees done", "No failure")
	check("after the retry", 500)
	for _, id := range ids {
		if fc.calls[id] != 1 {
			t.Errorf("trainee %d: %d updates sent by the action and its retry, want 1", id, fc.calls[id])
		}
	}
	// Every request carried its trainee's key, the same on the retry.
	a := d.m.modal.(*bulkModal).a
	checkOneKeyEach(t, s, a)
	// The whole action sent again (an answer lost for every trainee):
	// the same requests, answered from the server's record, change nothing
	// twice: still one trainee.updated event per trainee.
	for _, j := range a.jobs {
		j.done = false
	}
	d.run(d.m.startBulk(a))
	d.settle()
	check("after sending everything again", 500)
	if replayed := countReplayed(s); replayed != 500 {
		t.Errorf("%d of the 500 requests sent again were answered from the server's record", replayed)
	}
	updated := updatedEvents(t, direct)
	for _, id := range ids {
		if updated[id] != 1 {
			t.Errorf("trainee %d: %d trainee.updated events, want 1", id, updated[id])
		}
	}
	d.press("esc")
	d.expect(t, "Done: extend the expiration by 30 days, 500 trainees.")
	if strings.Contains(d.screen(), "marked •") {
		t.Errorf("marks left:\n%s", d.screen())
	}
}

// createBulkload creates n trainees named "Bulkload NNN" expiring today,
// 8 at a time, and returns their ids.
func createBulkload(t *testing.T, direct *client.Client, n int, today api.Date) []int64 {
	t.Helper()
	ctx := context.Background()
	var mu sync.Mutex
	var ids []int64
	var wg sync.WaitGroup
	sem := make(chan struct{}, 8)
	for i := range n {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			tr, err := direct.CreateTrainee(ctx, api.CreateRequest{Name: fmt.Sprintf("Bulkload %03d", i),
				Email: fmt.Sprintf("bulkload%03d@example.com", i), Password: "long enough", ExpirationDate: &today})
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			ids = append(ids, tr.ID)
			mu.Unlock()
		}()
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	return ids
}

// checkExtended checks that applied of the Bulkload trainees expire on
// want and the others still on today.
func checkExtended(t *testing.T, direct *client.Client, today, want api.Date, when string, applied int) {
	t.Helper()
	all := searchAll(t, direct, client.SearchParams{Query: "Bulkload", Status: api.StatusAll})
	n := 0
	for _, tr := range all {
		switch {
		case tr.ExpirationDate != nil && *tr.ExpirationDate == want:
			n++
		case tr.ExpirationDate == nil || *tr.ExpirationDate != today:
			t.Errorf("%s: %s expires %v, want %s or %s", when, tr.Name, tr.ExpirationDate, want, today)
		}
	}
	if n != applied {
		t.Errorf("%s: %d trainees extended, want %d", when, n, applied)
	}
}

// checkOneKeyEach checks that the PUTs recorded since the last take
// carried each job's idempotency key exactly once, and that each key ends
// with its trainee's id.
func checkOneKeyEach(t *testing.T, s *testServer, a *bulkAction) {
	t.Helper()
	keys := map[string]int{}
	for _, r := range s.rec.take() {
		if r.Method == "PUT" {
			keys[r.IdempotencyKey]++
		}
	}
	for _, j := range a.jobs {
		if keys[j.key] != 1 || !strings.HasSuffix(j.key, fmt.Sprintf("-%d", j.t.ID)) {
			t.Errorf("trainee %d: key %q sent %d times", j.t.ID, j.key, keys[j.key])
		}
	}
}

// countReplayed is how many PUTs recorded since the last take the server
// answered from its record of an earlier one.
func countReplayed(s *testServer) int {
	replayed := 0
	for _, r := range s.rec.take() {
		if r.Method == "PUT" && r.Replayed {
			replayed++
		}
	}
	return replayed
}

// updatedEvents counts the trainee.updated events of the company by
// trainee, every page of the feed read.
func updatedEvents(t *testing.T, direct *client.Client) map[int64]int {
	t.Helper()
	ctx := context.Background()
	updated := map[int64]int{}
	events, err := direct.Events(ctx, client.EventParams{Types: []string{api.EventTraineeUpdated}, Limit: api.MaxEventLimit})
	must(t, err)
	for next := events; ; {
		for _, e := range next.Events {
			if c, ok := changeOf(e); ok {
				updated[c.Trainee.ID]++
			}
		}
		if !next.HasMore {
			break
		}
		next, err = direct.Events(ctx, client.EventParams{After: next.Next, Types: []string{api.EventTraineeUpdated}, Limit: api.MaxEventLimit})
		must(t, err)
	}
	return updated
}

// The TUI's bulk actions plan with the CLI's rule (api.BulkAction): extend
// leaves a trainee without expiration date as it is (it never expires)
// and says so, and setting the trainer a trainee already has counts it as
// unchanged, not done; both are listed apart from the done ones.
func TestBulkSkipsAndUnchanged(t *testing.T) {
	s := newServer(t)
	direct := s.direct()
	ctx := context.Background()
	trainers, err := direct.Trainers(ctx, client.TrainerParams{})
	must(t, err)
	if len(trainers) == 0 {
		t.Fatal("no trainer in the demo data")
	}
	tr0 := trainers[len(trainers)-1]
	today := testToday
	byName := map[string]*api.Trainee{}
	for _, c := range []api.CreateRequest{
		{Name: "Skipper Never", Email: "skipper.never@example.com"},
		{Name: "Skipper Dated", Email: "skipper.dated@example.com", ExpirationDate: &today, TrainerID: &tr0.ID},
	} {
		c.Password = "long enough"
		tr, err := direct.CreateTrainee(ctx, c)
		must(t, err)
		byName[tr.Name] = tr
	}
	d := newDriver(t, s.client(s.Key), Options{NoColor: true})
	d.send(tea.WindowSizeMsg{Width: 100, Height: 30})
	d.press("/")
	d.typeText("Skipper")
	d.press("enter", "ctrl+a")
	d.expect(t, "2 marked")
	d.press(":")
	d.typeText("extend 30")
	d.press("enter")
	// The question lists each trainee it changes, before → after.
	dated := byName["Skipper Dated"]
	d.expect(t, "2 marked trainees: extend the expiration by 30 days?", "1 trainee will stay unchanged: no expiration date: never expires",
		fmt.Sprintf("Skipper Dated #%d  expirationDate %s → %s", dated.ID, today, today.AddDays(30)))
	d.expectNot(t, fmt.Sprintf("Skipper Never #%d", byName["Skipper Never"].ID))
	d.press("y")
	d.expect(t, "1 of 1 trainee done", "– 1 trainee unchanged: no expiration date: never expires")
	d.press("esc")
	// The result in one line; the panel said why one was left.
	d.expect(t, "Done: extend the expiration by 30 days, 1 trainee; 1 unchanged.")
	got, err := direct.Trainee(ctx, byName["Skipper Never"].ID)
	must(t, err)
	if got.TrainerID != nil && *got.TrainerID == tr0.ID {
		t.Fatalf("the demo data's default trainer is the last one: pick another")
	}
	if got.ExpirationDate != nil {
		t.Errorf("a trainee without expiration date got one: %s", got.ExpirationDate)
	}
	got, err = direct.Trainee(ctx, byName["Skipper Dated"].ID)
	must(t, err)
	if want := today.AddDays(30); got.ExpirationDate == nil || *got.ExpirationDate != want {
		t.Errorf("the dated trainee expires %v, want %s", got.ExpirationDate, want)
	}

	d.press("ctrl+a")
	d.expect(t, "2 marked")
	d.press(":")
	d.typeText("trainer " + strconv.FormatInt(tr0.ID, 10))
	d.press("enter", "y")
	d.expect(t, "1 of 1 trainee done", "– 1 trainee unchanged: already as asked")
	if strings.Contains(d.screen(), "2 of 2 trainees done") {
		t.Errorf("the trainee that had the trainer counts as done:\n%s", d.screen())
	}
}

// A bulk trainer command naming no trainer says so and lists the
// company's trainers; so does an unknown id.
func TestBulkTrainerUnknownListsTrainers(t *testing.T) {
	s := newServer(t)
	d := newDriver(t, s.client(s.Key), Options{})
	d.send(tea.WindowSizeMsg{Width: 160, Height: 30})
	if len(d.m.TrainerList) == 0 {
		t.Fatal("the trainers are not read")
	}
	first := d.m.TrainerList[0].Name
	d.press("space", ":")
	d.typeText("trainer Zed")
	d.press("enter")
	d.expect(t, "no trainer called Zed (trainers: "+first)
	d.expectNot(t, "trainer takes")
	d.press(":") // the failed command closed the line; the mark stays
	d.typeText("trainer 99999")
	d.press("enter")
	d.expect(t, "no trainer has the id 99999 (trainers: "+first)
}
