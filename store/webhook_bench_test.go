package store_test

import (
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/store"
	"github.com/traineed/traineed/store/storetest"
)

var benchDBs = []struct {
	name string
	open func(testing.TB) *store.Store
}{{"sqlite", storetest.SQLite}, {"postgres", storetest.Postgres}}

var benchSeq atomic.Int64

func benchTrainee() api.NewTrainee {
	n := benchSeq.Add(1)
	return storetest.NewTrainee("Bench Trainee", fmt.Sprintf("bench%d@example.com", n))
}

// BenchmarkOutbox measures what the transactional outbox adds to a create
// and an update. Every iteration runs the operation once on a store without
// the outbox and once on a store with it (no endpoint: the event row only;
// one endpoint: the event and a delivery row), interleaved so that both see
// the same machine load, and reports the medians:
//
//	TRAINEED_TEST_POSTGRES=postgres://... go test -run '^$' -bench Outbox -benchtime 2000x ./store/
func BenchmarkOutbox(b *testing.B) {
	for _, db := range benchDBs {
		b.Run(db.name, func(b *testing.B) {
			for _, endpoints := range []int{0, 1} {
				for _, op := range []string{"create", "update"} {
					b.Run(fmt.Sprintf("%s/endpoints=%d", op, endpoints), func(b *testing.B) {
						setup := func(outbox bool) *changeSide {
							s := db.open(b)
							store.SetOutbox(s, outbox)
							c, err := s.CreateCompany(ctx, "Bench", "UTC")
							if err != nil {
								b.Fatal(err)
							}
							if _, err := s.CreateTrainer(ctx, c.ID, "Coach", fmt.Sprintf("coach%d@bench.example.com", benchSeq.Add(1))); err != nil {
								b.Fatal(err)
							}
							for range endpoints {
								// Nobody dispatches: the deliveries stay pending.
								if _, err := s.CreateWebhook(ctx, c.ID, "http://127.0.0.1:9/hook", nil, api.GenerateWebhookSecret()); err != nil {
									b.Fatal(err)
								}
							}
							tr, err := s.CreateTrainee(ctx, c.ID, benchTrainee())
							if err != nil {
								b.Fatal(err)
							}
							return &changeSide{s: s, company: c.ID, trainee: tr.ID}
						}
						base, outbox := setup(false), setup(true)
						i := 0
						for b.Loop() {
							i++
							base.change(b, op, i)
							outbox.change(b, op, i)
						}
						mb, mo := medianMicros(base.took), medianMicros(outbox.took)
						b.ReportMetric(mb, "base-µs")
						b.ReportMetric(mo, "outbox-µs")
						b.ReportMetric(mo-mb, "added-µs")
					})
				}
			}
		})
	}
}
