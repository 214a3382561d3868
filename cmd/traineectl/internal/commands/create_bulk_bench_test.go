package commands_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/cmd/traineectl/internal/cmdutil"
	"github.com/traineed/traineed/cmd/traineectl/internal/commands"
	"github.com/traineed/traineed/cmd/traineectl/internal/iostreams"
	"github.com/traineed/traineed/store/storetest"
)

// benchRows is the size of the benchmark's import.
const benchRows = 2000

// benchServer starts the real handler with the production hasher
// (api.DefaultPasswordParams, which bounds the create rate) over a fresh
// SQLite database, and returns its URL and a key.
func benchServer(b *testing.B) (string, string) {
	b.Helper()
	ctx := context.Background()
	st := storetest.SQLite(b)
	c, err := st.CreateCompany(ctx, "Acme", "UTC")
	must(b, err)
	_, err = st.CreateTrainer(ctx, c.ID, "Coach", "coach@acme.example")
	must(b, err)
	k := api.GenerateKey()
	_, err = st.CreateKey(ctx, c.ID, "bench", api.HashKey(k), api.KeyDisplayPrefix(k))
	must(b, err)
	srv := httptest.NewServer(api.NewHandler(st, api.WithHasher(api.NewHasher(api.DefaultPasswordParams))))
	b.Cleanup(srv.Close)
	return srv.URL, k
}

// BenchmarkCreates2000 compares, at the same parallelism (4), the server's
// own create rate (raw creates through the Go client) with `traineectl
// create -f` of the same rows (journal, results file and all). Run:
//
//	go test -run '^$' -bench Creates2000 -benchtime 1x ./cmd/traineectl/internal/commands/
func BenchmarkCreates2000(b *testing.B) {
	const parallel = 4
	b.Run("server", func(b *testing.B) {
		var total time.Duration
		for range b.N {
			b.StopTimer()
			url, key := benchServer(b)
			c := api.NewClient(url, key)
			work := make(chan int)
			var wg sync.WaitGroup
			var failed sync.Map
			b.StartTimer()
			start := time.Now()
			for range parallel {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := range work {
						_, err := c.CreateTrainee(context.Background(), api.CreateRequest{
							Name: fmt.Sprintf("Trainee %d", i), Email: fmt.Sprintf("t%d@example.com", i), Password: "S3cret-pass"})
						if err != nil {
							failed.Store(i, err)
						}
					}
				}()
			}
			for i := range benchRows {
				work <- i
			}
			close(work)
			wg.Wait()
			total += time.Since(start)
			failed.Range(func(k, v any) bool { b.Fatalf("row %v: %v", k, v); return false })
		}
		b.ReportMetric(float64(benchRows*b.N)/total.Seconds(), "rows/s")
	})
	b.Run("import", func(b *testing.B) {
		var total time.Duration
		for range b.N {
			b.StopTimer()
			url, key := benchServer(b)
			dir := b.TempDir()
			var in strings.Builder
			in.WriteString("name,email,password\n")
			for i := range benchRows {
				fmt.Fprintf(&in, "Trainee %d,t%d@example.com,S3cret-pass\n", i, i)
			}
			input := filepath.Join(dir, "rows.csv")
			must(b, os.WriteFile(input, []byte(in.String()), 0o644))
			ios, _, errOut := iostreams.Test("")
			f := &cmdutil.Factory{IOStreams: ios, Version: "bench", Now: time.Now,
				Getenv: func(k string) string {
					return map[string]string{cmdutil.EnvBaseURL: url, cmdutil.EnvAPIKey: key, "XDG_CONFIG_HOME": dir}[k]
				}}
			b.StartTimer()
			start := time.Now()
			code := commands.Run([]string{"create", "-f", input, "--results", filepath.Join(dir, "results.csv"),
				"--parallel", fmt.Sprint(parallel)}, f)
			total += time.Since(start)
			if code != 0 {
				b.Fatalf("exit %d: %s", code, errOut)
			}
		}
		b.ReportMetric(float64(benchRows*b.N)/total.Seconds(), "rows/s")
	})
}
