package main

import (
	"context"
	"strings"
	"testing"

	"github.com/traineed/traineed/store/storetest"
)

// `traineed migrate` says which stored phone numbers the data migration
// left as they were, on stderr, once; stdout stays empty and the exit
// status 0.
func TestMigrateReportsPhonesLeftAlone(t *testing.T) {
	storetest.EachURL(t, func(t *testing.T, db string) {
		s := storetest.Open(t, db)
		ctx := context.Background()
		co, err := s.CreateCompany(ctx, "Acme", "UTC")
		must(t, err)
		storetest.MustTrainer(t, s, co.ID, "Coach", "coach@acme.example")
		tr := storetest.MustCreate(t, s, co.ID, storetest.NewTrainee("Bo Park", "bo@example.com"))
		raw := storetest.DB(t, s)
		_, err = raw.NewRaw("UPDATE users SET phone = '+99912345678' WHERE id = ?", tr.UserID).Exec(ctx)
		must(t, err)
		_, err = raw.NewRaw("DELETE FROM bun_migrations WHERE name = '20260101000016'").Exec(ctx)
		must(t, err)
		out, errOut, code := traineed(t, db, "migrate")
		if code != 0 || out != "" || !strings.Contains(errOut, `traineed: migration: user `) ||
			!strings.Contains(errOut, `phone number "+99912345678" left as it is: phone number has no known country code`) {
			t.Fatalf("migrate: exit %d, stdout %q, stderr %q", code, out, errOut)
		}
		if out, errOut, code := traineed(t, db, "migrate"); code != 0 || out != "" || errOut != "" {
			t.Fatalf("migrate again: exit %d, stdout %q, stderr %q", code, out, errOut)
		}
	})
}
