package bulkimport

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/client"
)

// limited answers its first refuse creates with 429, as a server over the
// key's rate limit does after the client's own waits, and records how many
// creates were in flight when each later one started.
type limited struct {
	mu       sync.Mutex
	refuse   int
	creates  int
	inFlight int
	late     []int // in flight (itself included) at the start of each create after the last 429
}

func (l *limited) Create(ctx context.Context, rid string, req api.CreateRequest) (*api.Trainee, error) {
	l.mu.Lock()
	l.creates++
	l.inFlight++
	refused := l.refuse > 0
	if refused {
		l.refuse--
	} else {
		l.late = append(l.late, l.inFlight)
	}
	l.mu.Unlock()
	time.Sleep(2 * time.Millisecond)
	l.mu.Lock()
	l.inFlight--
	l.mu.Unlock()
	if refused {
		return nil, &client.RejectedError{CallInfo: client.CallInfo{Status: 429, Attempts: 1}}
	}
	return &api.Trainee{ID: 77, Email: req.Email}, nil
}

func (l *limited) FindByEmail(context.Context, string) (*api.Trainee, error) { return nil, nil }

// 429s do not fail rows: each is sent again after a pause, and the import
// halves its parallelism per 429 (4 → 2 → 1), so that once it is at one
// no two creates are ever in flight together.
func TestRunSlowsDownOnRateLimit(t *testing.T) {
	var csv strings.Builder
	csv.WriteString("name,email,password\n")
	for i := range 12 {
		fmt.Fprintf(&csv, "Row %d,row%d@example.com,S3cret-pass\n", i, i)
	}
	rows, err := Read(strings.NewReader(csv.String()), ReadOptions{Format: CSV, Today: today})
	must(t, err)
	j, err := OpenJournal(t.TempDir() + "/j")
	must(t, err)
	defer j.Close()
	a := &limited{refuse: 3}
	sum, recs, err := Run(context.Background(), rows, Options{API: a, Journal: j, Parallel: 4, ThrottleWait: time.Millisecond})
	must(t, err)
	if sum.Created != 12 || sum.Failed != 0 || sum.Throttled != 3 || sum.Parallel != 1 || a.creates != 15 {
		t.Fatalf("summary %+v, %d creates", sum, a.creates)
	}
	if !strings.Contains(sum.Text(), "refused 3 sends, sent again: slowed to 1 at a time") {
		t.Errorf("summary text: %s", sum.Text())
	}
	for _, r := range recs {
		if r.Status != StatusCreated {
			t.Fatalf("record %+v", r)
		}
	}
	// The creates sent after the last 429 began once the import was down
	// to one slot, apart from those already holding a slot then.
	tail := a.late[len(a.late)-6:]
	for _, n := range tail {
		if n != 1 {
			t.Fatalf("creates in flight at the start of the last ones: %v (all: %v)", tail, a.late)
		}
	}
}
