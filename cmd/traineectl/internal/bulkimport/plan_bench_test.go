package bulkimport

import (
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/traineed/traineed/api"
)

// BenchmarkReadAndPlan100k reads a 100,000-row CSV for apply -f and plans
// it against an index of 100,000 trainees: apply --dry-run without the
// server. Run:
//
//	go test -run '^$' -bench ReadAndPlan100k -benchtime 1x ./cmd/traineectl/internal/bulkimport/
func BenchmarkReadAndPlan100k(b *testing.B) { benchReadAndPlan(b, 100_000) }

// BenchmarkReadAndPlan10k is BenchmarkReadAndPlan100k at a tenth of the
// size, for instruction counts under valgrind --tool=callgrind.
func BenchmarkReadAndPlan10k(b *testing.B) { benchReadAndPlan(b, 10_000) }

func benchReadAndPlan(b *testing.B, n int) {
	var in strings.Builder
	in.WriteString("name,email,phone,password\n")
	x := NewIndex()
	var ts []*api.Trainee
	for i := range n {
		phone := ""
		if i%10 == 0 {
			phone = fmt.Sprintf("+4477%08d", i)
		}
		fmt.Fprintf(&in, "Trainee %d,t%06d@example.com,%s,S3cret-pass\n", i, i, phone)
		t := &api.Trainee{ID: int64(i + 1), Name: fmt.Sprintf("Trainee %d", i), Email: fmt.Sprintf("t%06d@example.com", i), Enabled: true, WeightUnit: "KG"}
		if phone != "" {
			t.PhoneNumber = &phone
		}
		ts = append(ts, t)
	}
	x.Add(ts)
	b.ResetTimer()
	cpu := cpuTime()
	for range b.N {
		input, err := ReadInput(strings.NewReader(in.String()), ReadOptions{Format: CSV, Today: today, Apply: true})
		if err != nil {
			b.Fatal(err)
		}
		p := MakePlan(input.Rows, x, PlanOptions{Prune: true})
		if p.Unchanged != n {
			b.Fatalf("plan %+v", p.Steps[:1])
		}
	}
	b.ReportMetric((cpuTime()-cpu).Seconds()/float64(b.N), "cpu-s/op")
}

// cpuTime is the user and system CPU time of the process so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
