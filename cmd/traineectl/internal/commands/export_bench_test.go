package commands_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/cmd/traineectl/internal/cmdutil"
	"github.com/traineed/traineed/cmd/traineectl/internal/commands"
	"github.com/traineed/traineed/cmd/traineectl/internal/iostreams"
	"github.com/traineed/traineed/store/storetest"
)

// syntheticSearch serves GET /public-api/trainees/search over n generated
// trainees (nothing stored: each page is made when asked), with keyset
// cursors as the real server gives them.
func syntheticSearch(n int) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		after, _ := strconv.Atoi(r.URL.Query().Get("cursor"))
		size, _ := strconv.Atoi(r.URL.Query().Get("size"))
		if size <= 0 {
			size = 20
		}
		phone := "+447700900123"
		dob := api.DateFromInt(19900302)
		trainer := int64(7)
		var page []api.Trainee
		for id := after + 1; id <= n && len(page) < size; id++ {
			email := fmt.Sprintf("trainee%d@example.com", id)
			page = append(page, api.Trainee{ID: int64(id), UserID: int64(id) + 1000, Name: fmt.Sprintf("Trainee Number %d", id),
				Email: email, Username: email, PhoneNumber: &phone, DateOfBirth: &dob, Enabled: true, CompanyID: 1,
				TrainerID: &trainer, CreatedByType: api.CreatedByAdmin, WeightUnit: api.UnitKG, Authorities: api.TraineeAuthorities})
		}
		var next *string
		if len(page) == size && after+size < n {
			c := strconv.Itoa(after + size)
			next = &c
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"timestamp": 1, "content": page,
			"page": map[string]any{"size": size, "number": 0, "totalElements": n, "totalPages": (n + size - 1) / size,
				"totalExact": true, "nextCursor": next, "hasMore": next != nil}})
	})
}

// BenchmarkExportStream is `traineectl export --file F` of
// TRAINEED_BENCH_EXPORT_N trainees (default 100,000) served by a
// synthetic search, in each format; it reports the highest heap in use
// (the client's and the stub's together) and the trainees written per
// second. Memory must not grow with N (compare N=100000 and N=1000000).
func BenchmarkExportStream(b *testing.B) {
	n := 100_000
	if v, err := strconv.Atoi(os.Getenv("TRAINEED_BENCH_EXPORT_N")); err == nil && v > 0 {
		n = v
	}
	srv := httptest.NewServer(syntheticSearch(n))
	b.Cleanup(srv.Close)
	env := map[string]string{"XDG_CONFIG_HOME": b.TempDir(), "HOME": b.TempDir(), cmdutil.EnvBaseURL: srv.URL, cmdutil.EnvAPIKey: stubKey}
	run := func(args ...string) (int, string) {
		ios, _, errOut := iostreams.Test("")
		f := &cmdutil.Factory{IOStreams: ios, Version: "bench", Getenv: func(k string) string { return env[k] }, Now: func() time.Time { return testNow }}
		return commands.Run(args, f), errOut.String()
	}
	for _, format := range []string{"csv", "jsonl", "yaml"} {
		b.Run(format, func(b *testing.B) {
			path := filepath.Join(b.TempDir(), "export."+format)
			runtime.GC()
			stop := storetest.HeapPeak(10*time.Millisecond, func(ms *runtime.MemStats) uint64 { return ms.HeapInuse })
			start := time.Now()
			for range b.N {
				if code, stderr := run("export", "--status", "all", "--file", path); code != 0 {
					b.Fatalf("export: exit %d: %s", code, stderr)
				}
			}
			b.ReportMetric(float64(n*b.N)/time.Since(start).Seconds(), "trainees/s")
			b.ReportMetric(float64(stop())/(1<<20), "peak-heap-MiB")
			if fi, err := os.Stat(path); err == nil {
				b.ReportMetric(float64(fi.Size())/(1<<20), "file-MiB")
			}
		})
	}
}
