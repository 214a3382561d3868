package bulkupdate

import (
	"context"
	"errors"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/client"
)

// fakeAPI answers reads with a trainee expiring on 10-12-2026 and
// applies changes, with a hook to refuse some.
type fakeAPI struct {
	mu      sync.Mutex
	applied map[int64]int // changes applied per trainee
	keys    map[int64][]string
	tags    map[int64][]string
	refuse  func(id int64, n int) error // n: the send's number for id
}

func (f *fakeAPI) Read(_ context.Context, id int64) (*api.Trainee, string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	d := api.Date{Year: 2026, Month: 12, Day: 10}
	return &api.Trainee{ID: id, Name: "T", Enabled: true, ExpirationDate: &d}, `"` + string(rune('1'+f.applied[id])) + `"`, nil
}

func (f *fakeAPI) Apply(_ context.Context, id int64, key, etag string, ch Change) (*api.Trainee, string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.keys[id] = append(f.keys[id], key)
	f.tags[id] = append(f.tags[id], etag)
	if f.refuse != nil {
		if err := f.refuse(id, len(f.keys[id])); err != nil {
			return nil, "", err
		}
	}
	f.applied[id]++
	return &api.Trainee{ID: id, Name: "T"}, `"2"`, nil
}

func newFake() *fakeAPI {
	return &fakeAPI{applied: map[int64]int{}, keys: map[int64][]string{}, tags: map[int64][]string{}}
}

var today = api.Date{Year: 2026, Month: 11, Day: 26}

// A trainee refused with 429 halves the parallelism and is sent again
// with the same key.
func TestThrottled(t *testing.T) {
	f := newFake()
	f.refuse = func(id int64, n int) error {
		if id == 3 && n <= 2 {
			return &client.RejectedError{CallInfo: client.CallInfo{Status: http.StatusTooManyRequests}}
		}
		return nil
	}
	sum, recs, err := Run(context.Background(), []int64{1, 2, 3, 4}, Options{API: f, Action: Action{Kind: KindExtend, Days: 30},
		ActionID: "a", Today: today, Parallel: 4, ThrottleWait: time.Millisecond})
	if err != nil || sum.Updated != 4 || sum.Throttled != 2 || sum.Parallel != 1 || len(recs) != 4 {
		t.Fatalf("%+v %v", sum, err)
	}
	if k := f.keys[3]; len(k) != 3 || k[0] != "a:3:1" || k[2] != "a:3:1" || f.applied[3] != 1 {
		t.Fatalf("keys %v, applied %d", k, f.applied[3])
	}
	if recs[0].Change != "expirationDate 10-12-2026 → 09-01-2027" {
		t.Fatalf("change %q", recs[0].Change)
	}
}

// A run stopped by a lost connection leaves the trainee "sent" in the
// journal; the re-run sends the same request again (key, If-Match,
// body), skips what was done, and tries a refusal again under a new key.
func TestJournalResume(t *testing.T) {
	path := filepath.Join(t.TempDir(), "j")
	f := newFake()
	f.refuse = func(id int64, n int) error {
		switch {
		case id == 2 && n == 1:
			return &client.NetworkError{Err: errors.New("connection reset")}
		case id == 1 && n == 1:
			return &client.PreconditionFailedError{RejectedError: &client.RejectedError{CallInfo: client.CallInfo{Status: 412},
				ErrorBody: api.ErrorBody{ErrorCode: api.CodePreconditionFailed}}}
		}
		return nil
	}
	run := func() (Summary, []Record, error) {
		j, err := OpenJournal(path)
		if err != nil {
			t.Fatal(err)
		}
		defer j.Close()
		if err := j.Start("act", "http://x", "extend"); err != nil {
			t.Fatal(err)
		}
		return Run(context.Background(), []int64{1, 2, 3}, Options{API: f, Action: Action{Kind: KindExtend, Days: 30},
			ActionID: "act", Journal: j, Today: today, Parallel: 1})
	}
	if _, recs, err := run(); err == nil || recs[0].Status != StatusConflict {
		t.Fatalf("first run: %v %+v", err, recs)
	}
	sum, recs, err := run()
	if err != nil {
		t.Fatal(err)
	}
	if sum.Updated != 3 || f.applied[1] != 1 || f.applied[2] != 1 || recs[1].Change == "" {
		t.Fatalf("second run %+v %+v, applied %v", sum, recs, f.applied)
	}
	if k := f.keys[2]; len(k) != 2 || k[0] != k[1] || f.tags[2][0] != f.tags[2][1] {
		t.Fatalf("the unanswered send was not sent again as it was: %v %v", k, f.tags[2])
	}
	if k := f.keys[1]; len(k) != 2 || k[1] != "act:1:2" {
		t.Fatalf("the refused one: keys %v", k)
	}
	// A third run: everything is done, nothing is sent.
	n := len(f.keys[1]) + len(f.keys[2]) + len(f.keys[3])
	sum, _, err = run()
	if err != nil || sum.AlreadyDone != 3 || len(f.keys[1])+len(f.keys[2])+len(f.keys[3]) != n {
		t.Fatalf("third run %+v %v", sum, err)
	}
}

// TestDryRunSummaryFitsOneLine: the dry run's summary of a few thousand
// trainees stays within 80 columns, and names the unreadable ones only
// when there are some.
func TestDryRunSummaryFitsOneLine(t *testing.T) {
	s := Summary{Total: 1500, WouldChange: 1200, Unchanged: 300}
	if got := s.Text(true); len(got) > 80 || strings.Contains(got, "unreadable") {
		t.Errorf("%d wide: %q", len(got), got)
	}
	s.Unchanged, s.Failed = 299, 1
	if got := s.Text(true); len(got) > 80 || !strings.Contains(got, "1 unreadable") {
		t.Errorf("%d wide: %q", len(got), got)
	}
}
