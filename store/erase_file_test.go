package store_test

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/store/storetest"
)

// TestEraseLeavesNoBytesInSQLiteFile: after an erase and a WAL
// checkpoint, the database file holds none of the trainee's name, e-mail
// or phone, in live rows or in freed pages (SQLite's secure_delete),
// though every update before the erase left an older copy of the row
// behind.
func TestEraseLeavesNoBytesInSQLiteFile(t *testing.T) {
	url := storetest.SQLiteURL(t)
	path := strings.TrimPrefix(url, "sqlite:")
	s := storetest.Open(t, url)
	tn := storetest.SetupTenants(t, s)
	storetest.AddWebhook(t, s, tn.A, "https://hooks.example/erase")
	nt := storetest.NewTrainee("Quintessa Vormbrandt", "quintessa.vormbrandt@erase.example")
	phone := "+447700900555"
	nt.PhoneNumber = &phone
	tr := storetest.MustCreate(t, s, tn.A, nt)
	keep := storetest.MustCreate(t, s, tn.A, storetest.NewTrainee("Kept Person", "kept.person@erase.example"))
	for i := range 10 {
		name := fmt.Sprintf("Quintessa Vormbrandt %d", i)
		if _, err := s.UpdateTrainee(ctx, tn.A, tr.ID, api.TraineePatch{Name: api.Val(name)}); err != nil {
			t.Fatal(err)
		}
	}
	needles := []string{"Vormbrandt", "vormbrandt", "quintessa.vormbrandt@erase.example", "447700900555"}
	db := storetest.DB(t, s)
	checkpoint := func() {
		t.Helper()
		if _, err := db.ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
			t.Fatal(err)
		}
	}
	count := func(needle string) int {
		t.Helper()
		n := 0
		for _, f := range []string{path, path + "-wal"} {
			b, err := os.ReadFile(f)
			if err != nil && !os.IsNotExist(err) {
				t.Fatal(err)
			}
			n += bytes.Count(b, []byte(needle))
		}
		return n
	}
	checkpoint()
	for _, n := range needles {
		if count(n) == 0 {
			t.Fatalf("before the erase the file holds no %q: the scan finds nothing", n)
		}
	}
	if _, err := s.EraseTrainee(ctx, tn.A, tr.ID, tr.Email); err != nil {
		t.Fatal(err)
	}
	checkpoint()
	for _, n := range needles {
		if c := count(n); c > 0 {
			t.Errorf("after the erase and a checkpoint the file holds %q %d times", n, c)
		}
	}
	// The search index no longer lists it (its trigram postings stay in
	// FTS5's segments until they merge: docs/server.md).
	var terms int
	if err := db.NewRaw("SELECT count(*) FROM trainees_fts_terms WHERE doc = ?", tr.ID).Scan(ctx, &terms); err != nil {
		t.Fatal(err)
	}
	if terms != 0 {
		t.Errorf("the search index lists %d terms of the erased trainee", terms)
	}
	if count("kept.person@erase.example") == 0 {
		t.Error("the other trainee's e-mail is gone from the file too")
	}
	storetest.MustGet(t, s, tn.A, keep.ID)
}
