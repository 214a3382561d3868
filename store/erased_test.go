package store_test

import (
	"strings"
	"testing"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/store"
	"github.com/traineed/traineed/store/storetest"
)

// TestEraseKeepsFingerprints: an erase keeps the keyed hashes of the
// trainee's e-mail and phone number, in its transaction, and the check
// matches them in any case and spelling of the same values; another
// company's erase of the same person matches nothing in this one; and the
// database holds neither the address nor the number afterwards, only
// hashes that are not their plain SHA-256 either.
func TestEraseKeepsFingerprints(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		tn := storetest.SetupTenants(t, s)
		nt := storetest.NewTrainee("Ottilie Brandvold", "Ottilie.Brandvold@Erased.example")
		phone := "+447700900777"
		nt.PhoneNumber = &phone
		tr := storetest.MustCreate(t, s, tn.B, nt)

		probes := []api.ErasedProbe{
			{Email: "  OTTILIE.brandvold@erased.example "},
			{Email: "someone.else@erased.example", PhoneNumber: ptr("+44 7700 900777")},
			{Email: "someone.else@erased.example"},
			{Email: "ottilie.brandvold@erased.example", PhoneNumber: ptr("+447700900777")},
		}
		// Before any erase neither company has a secret or a match.
		for _, c := range []int64{tn.A, tn.B} {
			m, err := s.ErasedMatches(ctx, c, probes)
			if err != nil {
				t.Fatal(err)
			}
			if len(m) != 0 {
				t.Fatalf("company %d matches %v before any erase", c, m)
			}
		}
		// Company A erases someone else, so that it has a secret too.
		other := storetest.MustCreate(t, s, tn.A, storetest.NewTrainee("Other Person", "other.person@erased.example"))
		if _, err := s.EraseTrainee(ctx, tn.A, other.ID, other.Email); err != nil {
			t.Fatal(err)
		}
		erased, err := s.EraseTrainee(ctx, tn.B, tr.ID, tr.Email)
		if err != nil {
			t.Fatal(err)
		}

		m, err := s.ErasedMatches(ctx, tn.B, probes)
		if err != nil {
			t.Fatal(err)
		}
		want := []api.ErasedMatch{
			{Index: 0, Field: "email", ErasedAt: erased.ErasedAt},
			{Index: 1, Field: "phoneNumber", ErasedAt: erased.ErasedAt},
			{Index: 3, Field: "email", ErasedAt: erased.ErasedAt},
		}
		if len(m) != len(want) {
			t.Fatalf("matches %+v, want %+v", m, want)
		}
		for i := range want {
			if m[i].Index != want[i].Index || m[i].Field != want[i].Field || !m[i].ErasedAt.Equal(want[i].ErasedAt) {
				t.Errorf("match %d: %+v, want %+v", i, m[i], want[i])
			}
		}
		// Company A erased someone, but not this person: no match.
		if m, err := s.ErasedMatches(ctx, tn.A, probes); err != nil || len(m) != 0 {
			t.Fatalf("company A matches %v (%v): another company's erase leaked", m, err)
		}
		// Company B does not match company A's erased person either.
		if m, err := s.ErasedMatches(ctx, tn.B, []api.ErasedProbe{{Email: "other.person@erased.example"}}); err != nil || len(m) != 0 {
			t.Fatalf("company B matches company A's erased person: %v (%v)", m, err)
		}

		db := storetest.DB(t, s)
		var rows []struct {
			CompanyID   int64  `bun:"company_id"`
			Kind        string `bun:"kind"`
			Fingerprint string `bun:"fingerprint"`
		}
		if err := db.NewRaw("SELECT company_id, kind, fingerprint FROM erased_fingerprints WHERE company_id = ? ORDER BY kind", tn.B).Scan(ctx, &rows); err != nil {
			t.Fatal(err)
		}
		if len(rows) != 2 || rows[0].Kind != "email" || rows[1].Kind != "phone" {
			t.Fatalf("company B's fingerprints: %+v, want an email's and a phone's", rows)
		}
		for _, r := range rows {
			if len(r.Fingerprint) != 64 {
				t.Errorf("fingerprint %q is not an HMAC-SHA256 in hex", r.Fingerprint)
			}
			for _, plain := range []string{"ottilie", "brandvold", "447700900777", "900777"} {
				if strings.Contains(r.Fingerprint, plain) {
					t.Errorf("fingerprint holds %q", plain)
				}
			}
			// Not an unkeyed hash: the company's secret is in it.
			if r.Fingerprint == api.ErasedFingerprint(nil, api.ErasedEmail, tr.Email) || r.Fingerprint == api.ErasedFingerprint(nil, api.ErasedPhone, phone) {
				t.Errorf("fingerprint %s is the hash without the company's secret", r.Fingerprint)
			}
		}
		// Nowhere in the two new tables is the address or the number.
		for _, needle := range []string{"brandvold", "447700900777"} {
			var n int
			if err := db.NewRaw("SELECT count(*) FROM erased_fingerprints WHERE lower(fingerprint) LIKE ? OR lower(kind) LIKE ?", "%"+needle+"%", "%"+needle+"%").Scan(ctx, &n); err != nil {
				t.Fatal(err)
			}
			if n != 0 {
				t.Errorf("erased_fingerprints holds %q", needle)
			}
		}
		var secrets, secretLen int
		if err := db.NewRaw("SELECT count(*), max(length(secret)) FROM erasure_secrets").Scan(ctx, &secrets, &secretLen); err != nil {
			t.Fatal(err)
		}
		if secrets != 2 || secretLen != 32 {
			t.Errorf("%d secrets of at most %d bytes, want one of 32 bytes per company that erased", secrets, secretLen)
		}
	})
}
