package commands_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/client"
	"github.com/traineed/traineed/api/server"
	"github.com/traineed/traineed/cmd/traineectl/internal/cmdutil"
	"github.com/traineed/traineed/cmd/traineectl/internal/commands"
	"github.com/traineed/traineed/cmd/traineectl/internal/iostreams"
	"github.com/traineed/traineed/store/storetest"
)

// benchRows is the size of the benchmark's import.
const benchRows = 2000

// benchServer starts the real handler with the production hasher
// (server.DefaultPasswordParams, which bounds the create rate) over a fresh
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
	srv := httptest.NewServer(server.NewHandler(st, server.WithHasher(server.NewHasher(server.DefaultPasswordParams))))
	b.Cleanup(srv.Close)
	return srv.URL, k
}

// BenchmarkCreates2000 compares, at the same parallelism (4), the server's
// own create rate (raw creates through the Go client, nothing else) with
// `traineectl create -f` (validation, journal with its fsyncs, results
// file, progress), 2,000 rows each, against one local server with the
// production hasher. The machine may be shared: so that both sides see the
// same load, the rows go in rounds of 100, alternating which side goes
// first. Besides the rates, it reports the process's CPU time per row on
// each side (client and server share the process): a measure of the
// import's own cost that the machine's load hardly changes. Run:
//
//	go test -run '^$' -bench Creates2000 -benchtime 1x ./cmd/traineectl/internal/commands/
func BenchmarkCreates2000(b *testing.B) {
	const (
		parallel = 4
		rounds   = 20
		perRound = benchRows / rounds
	)
	var server, imp, serverCPU, impCPU time.Duration
	for n := range b.N {
		b.StopTimer()
		url, key := benchServer(b)
		c := client.New(url, key)
		dir := b.TempDir()
		b.StartTimer()
		raw := func(round int) time.Duration {
			work := make(chan int)
			var wg sync.WaitGroup
			var failed sync.Map
			start := time.Now()
			for range parallel {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := range work {
						_, err := c.CreateTrainee(context.Background(), api.CreateRequest{
							Name: fmt.Sprintf("Trainee %d", i), Email: fmt.Sprintf("s%d-%d@example.com", n, i), Password: "S3cret-pass"})
						if err != nil {
							failed.Store(i, err)
						}
					}
				}()
			}
			for i := round * perRound; i < (round+1)*perRound; i++ {
				work <- i
			}
			close(work)
			wg.Wait()
			d := time.Since(start)
			failed.Range(func(k, v any) bool { b.Fatalf("row %v: %v", k, v); return false })
			return d
		}
		bulk := func(round int) time.Duration {
			var in strings.Builder
			in.WriteString("name,email,password\n")
			for i := round * perRound; i < (round+1)*perRound; i++ {
				fmt.Fprintf(&in, "Trainee %d,i%d-%d@example.com,S3cret-pass\n", i, n, i)
			}
			input := filepath.Join(dir, fmt.Sprintf("rows-%d.csv", round))
			must(b, os.WriteFile(input, []byte(in.String()), 0o644))
			ios, _, errOut := iostreams.Test("")
			f := &cmdutil.Factory{IOStreams: ios, Version: "bench", Now: time.Now,
				Getenv: func(k string) string {
					return map[string]string{cmdutil.EnvBaseURL: url, cmdutil.EnvAPIKey: key, "XDG_CONFIG_HOME": dir}[k]
				}}
			start := time.Now()
			code := commands.Run([]string{"create", "-f", input, "--results", filepath.Join(dir, "results.csv"),
				"--parallel", fmt.Sprint(parallel)}, f)
			d := time.Since(start)
			if code != 0 {
				b.Fatalf("exit %d: %s", code, errOut)
			}
			return d
		}
		side := func(round int, f func(int) time.Duration, wall, cpu *time.Duration) {
			c := cpuTime()
			*wall += f(round)
			*cpu += cpuTime() - c
		}
		for round := range rounds {
			if round%2 == 0 {
				side(round, raw, &server, &serverCPU)
				side(round, bulk, &imp, &impCPU)
			} else {
				side(round, bulk, &imp, &impCPU)
				side(round, raw, &server, &serverCPU)
			}
		}
	}
	sRate := float64(benchRows*b.N) / server.Seconds()
	iRate := float64(benchRows*b.N) / imp.Seconds()
	b.ReportMetric(sRate, "server-rows/s")
	b.ReportMetric(iRate, "import-rows/s")
	b.ReportMetric(100*iRate/sRate, "import-%")
	rowsDone := float64(benchRows * b.N)
	b.ReportMetric(float64(serverCPU.Milliseconds())/rowsDone, "server-cpu-ms/row")
	b.ReportMetric(float64(impCPU.Milliseconds())/rowsDone, "import-cpu-ms/row")
	b.ReportMetric(0, "ns/op")
}

// cpuTime is the user and system CPU time of the process so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
