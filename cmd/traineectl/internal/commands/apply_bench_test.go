package commands_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/server"
	"github.com/traineed/traineed/cmd/traineectl/internal/bulkimport"
	"github.com/traineed/traineed/cmd/traineectl/internal/cmdutil"
	"github.com/traineed/traineed/cmd/traineectl/internal/commands"
	"github.com/traineed/traineed/cmd/traineectl/internal/iostreams"
	"github.com/traineed/traineed/store"
	"github.com/traineed/traineed/store/storetest"
)

// applyBenchSize is the company and the file of BenchmarkApplyDryRun100k.
const applyBenchSize = 100_000

// BenchmarkApplyDryRun100k times `traineectl apply -f --dry-run` of a
// 100,000-row CSV against a company of 100,000 trainees (a tenth with a
// phone number, every hundredth deleted), on SQLite and on PostgreSQL,
// through the real handler: reading the file and checking every row,
// reading the company (1,000 search pages by cursor) and planning. The
// file changes 1 % of the trainees (a new name), adds 1 % and lacks 1 %.
// "nolimit" is the server without a rate limiter; "limit1200" has traineed's
// default limit per key (1,200 requests a minute, burst 100), which the
// 1,000 pages meet. It reports the whole run and the part spent reading
// the company. Run:
//
//	TRAINEED_TEST_POSTGRES=... go test -run '^$' -bench ApplyDryRun100k -benchtime 1x ./cmd/traineectl/internal/commands/
func BenchmarkApplyDryRun100k(b *testing.B) {
	for _, db := range []struct {
		name string
		open func(testing.TB) *store.Store
	}{{"sqlite", storetest.SQLite}, {"postgres", storetest.Postgres}} {
		for _, limited := range []bool{false, true} {
			name := db.name + "/nolimit"
			if limited {
				name = db.name + "/limit1200"
			}
			b.Run(name, func(b *testing.B) { benchApplyDryRun(b, db.open(b), limited) })
		}
	}
}

func benchApplyDryRun(b *testing.B, st *store.Store, limited bool) {
	ctx := context.Background()
	c, err := st.CreateCompany(ctx, "Acme", "UTC")
	must(b, err)
	storetest.MustTrainer(b, st, c.ID, "Coach", "coach@acme.example")
	k := api.GenerateKey()
	_, err = st.CreateKey(ctx, c.ID, "bench", api.HashKey(k), api.KeyDisplayPrefix(k))
	must(b, err)
	ts := make([]api.NewTrainee, applyBenchSize)
	for i := range ts {
		ts[i] = api.NewTrainee{Name: fmt.Sprintf("Trainee %d", i), Email: fmt.Sprintf("t%06d@example.com", i),
			Enabled: i%100 != 0, WeightUnit: api.UnitKG, CreatedByType: api.CreatedByAdmin}
		if i%10 == 0 {
			p := fmt.Sprintf("+4477%08d", i)
			ts[i].PhoneNumber = &p
		}
	}
	must(b, st.AddTraineesBulk(ctx, c.ID, ts, "$argon2id$bench"))
	must(b, st.AnalyzeTrainees(ctx))
	opts := []server.Option{}
	if limited {
		opts = append(opts, server.WithRateLimiter(server.NewMemoryLimiter(server.DefaultRateLimit, server.DefaultRateBurst)))
	}
	srv := httptest.NewServer(server.NewHandler(st, opts...))
	b.Cleanup(srv.Close)

	var in strings.Builder
	in.WriteString("name,email,phone,password\n")
	for i := applyBenchSize / 100; i < applyBenchSize+applyBenchSize/100; i++ { // lacks the first 1 %, adds 1 %
		name := fmt.Sprintf("Trainee %d", i)
		if i%100 == 1 {
			name = fmt.Sprintf("Renamed %d", i)
		}
		phone := ""
		if i%10 == 0 {
			phone = fmt.Sprintf("+4477%08d", i)
		}
		fmt.Fprintf(&in, "%s,t%06d@example.com,%s,S3cret-pass\n", name, i, phone)
	}
	dir := b.TempDir()
	input := filepath.Join(dir, "clients.csv")
	must(b, os.WriteFile(input, []byte(in.String()), 0o644))

	b.ResetTimer()
	var total, read time.Duration
	for range b.N {
		ios, out, errOut := iostreams.Test("")
		f := &cmdutil.Factory{IOStreams: ios, Version: "bench", Now: time.Now,
			Getenv: func(key string) string {
				return map[string]string{cmdutil.EnvBaseURL: srv.URL, cmdutil.EnvAPIKey: k, "XDG_CONFIG_HOME": dir}[key]
			}}
		start := time.Now()
		code := commands.Run([]string{"apply", "-f", input, "--dry-run", "--prune", "-o", "json"}, f)
		total += time.Since(start)
		if code != 0 {
			b.Fatalf("exit %d: %s", code, errOut)
		}
		var plan bulkimport.Plan
		must(b, json.Unmarshal(out.Bytes(), &plan))
		if plan.Create != 1000 || plan.Update != 990 || plan.Restore != 990 || plan.Delete != 990 || plan.Refused != 0 {
			b.Fatalf("plan: %d create, %d update, %d restore, %d delete, %d refused", plan.Create, plan.Update, plan.Restore, plan.Delete, plan.Refused)
		}
		// The company's read alone, as apply makes it.
		start = time.Now()
		code = commands.Run([]string{"search", "--status", "all", "--all", "-o", "json"}, f)
		read += time.Since(start)
		if code != 0 {
			b.Fatalf("search: exit %d: %s", code, errOut)
		}
	}
	b.ReportMetric(total.Seconds()/float64(b.N), "s/apply-dry-run")
	b.ReportMetric(read.Seconds()/float64(b.N), "s/read-company")
	b.ReportMetric(0, "ns/op")
}
