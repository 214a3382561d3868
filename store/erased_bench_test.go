package store_test

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"testing"
	"time"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/store/storetest"
)

// BenchmarkErasedMatches is one POST /trainees/erased-check of the most
// people it takes (api.MaxErasedCheck, each with an e-mail and a phone
// number: 2,000 keyed hashes) against a company with 10,000 erased
// fingerprints, on SQLite: what a plan of create -f or apply -f adds per
// 1,000 rows to create.
func BenchmarkErasedMatches(b *testing.B) {
	s := storetest.SQLite(b)
	tn := storetest.SetupTenants(b, s)
	tr := storetest.MustCreate(b, s, tn.A, storetest.NewTrainee("Erased Once", "erased.once@bench.example"))
	if _, err := s.EraseTrainee(ctx, tn.A, tr.ID, tr.Email); err != nil {
		b.Fatal(err)
	}
	db := storetest.DB(b, s)
	now := time.Now().UTC()
	for i := range 10000 {
		buf := make([]byte, 32)
		_, _ = rand.Read(buf)
		if _, err := db.ExecContext(ctx, "INSERT INTO erased_fingerprints (company_id, kind, fingerprint, erased_at) VALUES (?, ?, ?, ?)",
			tn.A, []string{"email", "phone"}[i%2], hex.EncodeToString(buf), now); err != nil {
			b.Fatal(err)
		}
	}
	people := make([]api.ErasedProbe, api.MaxErasedCheck)
	for i := range people {
		phone := fmt.Sprintf("+4477009%05d", i)
		people[i] = api.ErasedProbe{Email: fmt.Sprintf("person.%d@bench.example", i), PhoneNumber: &phone}
	}
	people[500].Email = "Erased.Once@bench.example"
	for b.Loop() {
		m, err := s.ErasedMatches(ctx, tn.A, people)
		if err != nil {
			b.Fatal(err)
		}
		if len(m) != 1 || m[0].Index != 500 {
			b.Fatalf("matches %+v, want person 500", m)
		}
	}
}
