package store_test

import (
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/store"
	"github.com/traineed/traineed/store/storetest"
)

func TestCreateAndGet(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		tn := storetest.SetupTenants(t, s)
		nt := storetest.NewTrainee("  Ada Park ", "  Ada@Example.COM ")
		nt.PhoneNumber = ptr("+447700900123")
		nt.DateOfBirth = ptr(date(t, "02-03-1990"))
		nt.ExpirationDate = ptr(date(t, "31-12-2030"))
		nt.WeightUnit = api.UnitLB
		got := storetest.MustCreate(t, s, tn.A, nt)

		want := &api.Trainee{
			ID:                  got.ID,
			UserID:              got.UserID,
			Name:                "Ada Park",
			Email:               "ada@example.com",
			Username:            "ada@example.com",
			PhoneNumber:         ptr("+447700900123"),
			DateOfBirth:         ptr(date(t, "02-03-1990")),
			ExpirationDate:      ptr(date(t, "31-12-2030")),
			Enabled:             true,
			CompanyID:           tn.A,
			TrainerID:           ptr(tn.TrainerA), // the lowest id of the company
			CreatedByType:       api.CreatedByAdmin,
			ForcePasswordChange: true,
			WeightUnit:          api.UnitLB,
			Authorities:         []string{"TRAINEE", "USER"},
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("created\n got %+v\nwant %+v", got, want)
		}
		if got.ID <= 0 || got.UserID <= 0 || got.ID == got.UserID {
			t.Fatalf("ids: trainee %d user %d: want distinct positive ids (users are shared with trainers)", got.ID, got.UserID)
		}
		if g := storetest.MustGet(t, s, tn.A, got.ID); !reflect.DeepEqual(g, want) {
			t.Fatalf("get\n got %+v\nwant %+v", g, want)
		}
		if h := storetest.UserColumn(t, s, got.UserID, "password_hash"); h != "$argon2id$test" {
			t.Fatalf("stored hash %q", h)
		}

		// Explicit trainer; minimal trainee; defaults.
		min := storetest.MustCreate(t, s, tn.A, api.NewTrainee{Name: "Min", Email: "min@example.com", PasswordHash: "h", Enabled: true, TrainerID: ptr(tn.TrainerA2)})
		if *min.TrainerID != tn.TrainerA2 || min.PhoneNumber != nil || min.DateOfBirth != nil || min.ExpirationDate != nil ||
			min.LastTrained != nil || min.WeightUnit != api.UnitKG || min.CreatedByType != api.CreatedByAdmin {
			t.Fatalf("minimal trainee %+v", min)
		}

		// A company without an active trainer refuses a create without
		// trainerId (1034), nothing stored; the first active trainer is
		// the default, a deactivated one never is (nor can it be given:
		// 1035).
		c, err := s.CreateCompany(ctx, "Empty Gym", "UTC")
		if err != nil {
			t.Fatal(err)
		}
		_, err = s.CreateTrainee(ctx, c.ID, storetest.NewTrainee("Lone", "lone@example.com"))
		if code := errorCode(err); code != api.CodeNoActiveTrainer {
			t.Fatalf("create in a company without trainers: %v", err)
		}
		first := storetest.MustTrainer(t, s, c.ID, "First Coach", "first@empty.example.com")
		second := storetest.MustTrainer(t, s, c.ID, "Second Coach", "second@empty.example.com")
		if _, err := s.UpdateTrainer(ctx, c.ID, first, api.TrainerPatch{Active: ptr(false)}); err != nil {
			t.Fatal(err)
		}
		lone := storetest.MustCreate(t, s, c.ID, storetest.NewTrainee("Lone", "lone@example.com"))
		if lone.TrainerID == nil || *lone.TrainerID != second {
			t.Fatalf("trainer %v, want the first active one %d", lone.TrainerID, second)
		}
		nt2 := storetest.NewTrainee("Lone Two", "lone2@example.com")
		nt2.TrainerID = ptr(first)
		if _, err := s.CreateTrainee(ctx, c.ID, nt2); errorCode(err) != api.CodeTrainerInactive {
			t.Fatalf("create with a deactivated trainer: %v", err)
		}

		// Unknown ids.
		if _, err := s.Trainee(ctx, tn.A, 999999); !errors.Is(err, api.ErrNotFound) {
			t.Fatalf("unknown id: %v", err)
		}
	})
}

func TestCreateForeignTrainer(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		tn := storetest.SetupTenants(t, s)
		for _, id := range []int64{tn.TrainerB, 987654} {
			nt := storetest.NewTrainee("Foreign", "foreign@example.com")
			nt.TrainerID = ptr(id)
			_, err := s.CreateTrainee(ctx, tn.A, nt)
			wantCode(t, err, api.CodeUnknownTrainer, "trainerId")
		}
		if n := storetest.Count(t, s, "users", "email = ?", "foreign@example.com"); n != 0 {
			t.Fatalf("%d users stored after a refused create", n)
		}
	})
}

func TestCreateConflicts(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		tn := storetest.SetupTenants(t, s)
		nt := storetest.NewTrainee("Ada", "ada@example.com")
		nt.PhoneNumber = ptr("+447700900123")
		storetest.MustCreate(t, s, tn.A, nt)

		dup := storetest.NewTrainee("Other", "ADA@example.com")
		_, err := s.CreateTrainee(ctx, tn.B, dup) // another company: e-mails are unique service-wide
		wantConflict(t, err, "email")

		dup = storetest.NewTrainee("Other", "other@example.com")
		dup.PhoneNumber = ptr("+447700900123")
		_, err = s.CreateTrainee(ctx, tn.A, dup)
		wantConflict(t, err, "phoneNumber")

		// A trainer's e-mail is taken too.
		_, err = s.CreateTrainee(ctx, tn.A, storetest.NewTrainee("Tess Again", "tess@alpha.example.com"))
		wantConflict(t, err, "email")

		// A soft-deleted trainee keeps its address.
		gone := storetest.MustCreate(t, s, tn.A, storetest.NewTrainee("Gone", "gone@example.com"))
		if _, err := s.UpdateTrainee(ctx, tn.A, gone.ID, api.TraineePatch{Enabled: api.Val(false)}); err != nil {
			t.Fatal(err)
		}
		_, err = s.CreateTrainee(ctx, tn.A, storetest.NewTrainee("Gone Again", "gone@example.com"))
		wantConflict(t, err, "email")

		if n := storetest.Count(t, s, "users", "email IN (?, ?)", "other@example.com", "ada@example.com"); n != 1 {
			t.Fatalf("%d users stored, want 1", n)
		}
	})
}

func TestConcurrentCreateSameEmail(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		tn := storetest.SetupTenants(t, s)
		const n = 20
		errs := make([]error, n)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				nt := storetest.NewTrainee(fmt.Sprintf("Racer %d", i), "race@example.com")
				nt.PhoneNumber = ptr(fmt.Sprintf("+4477009001%02d", i))
				_, errs[i] = s.CreateTrainee(ctx, tn.A, nt)
			}()
		}
		close(start)
		wg.Wait()
		ok := 0
		for i, err := range errs {
			var c *api.ConflictError
			switch {
			case err == nil:
				ok++
			case errors.As(err, &c) && c.Field == "email":
			default:
				t.Errorf("create %d: %v", i, err)
			}
		}
		if ok != 1 {
			t.Fatalf("%d creates succeeded, want 1", ok)
		}
		if n := storetest.Count(t, s, "users", "email = ?", "race@example.com"); n != 1 {
			t.Fatalf("%d users stored, want 1", n)
		}
		if n := storetest.Count(t, s, "trainees", "company_id = ?", tn.A); n != 1 {
			t.Fatalf("%d trainees stored, want 1", n)
		}
	})
}

// Many writers at once must queue, never fail (SQLITE_BUSY on SQLite).
func TestConcurrentWriters(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		tn := storetest.SetupTenants(t, s)
		shared := storetest.MustCreate(t, s, tn.A, storetest.NewTrainee("Shared", "shared@example.com"))
		const n = 20
		var wg sync.WaitGroup
		errs := make(chan error, 2*n)
		for i := range n {
			wg.Add(2)
			go func() {
				defer wg.Done()
				_, err := s.CreateTrainee(ctx, tn.A, storetest.NewTrainee(fmt.Sprintf("Writer %d", i), fmt.Sprintf("writer%d@example.com", i)))
				errs <- err
			}()
			go func() {
				defer wg.Done()
				_, err := s.UpdateTrainee(ctx, tn.A, shared.ID, api.TraineePatch{Name: api.Val(fmt.Sprintf("Shared %d", i))})
				errs <- err
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Error(err)
			}
		}
		if n := storetest.Count(t, s, "trainees", "company_id = ?", tn.A); n != 21 {
			t.Fatalf("%d trainees, want 21", n)
		}
	})
}

func TestUpdate(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		tn := storetest.SetupTenants(t, s)
		orig := storetest.MustCreate(t, s, tn.A, storetest.NewTrainee("Ada Park", "ada@example.com"))
		other := storetest.NewTrainee("Bo", "bo@example.com")
		other.PhoneNumber = ptr("+447700900999")
		storetest.MustCreate(t, s, tn.A, other)

		update := func(p api.TraineePatch) *api.Trainee {
			t.Helper()
			got, err := s.UpdateTrainee(ctx, tn.A, orig.ID, p)
			if err != nil {
				t.Fatalf("update %+v: %v", p, err)
			}
			if g := storetest.MustGet(t, s, tn.A, orig.ID); !reflect.DeepEqual(g, got) {
				t.Fatalf("update returned %+v, stored %+v", got, g)
			}
			return got
		}

		// Every field at once.
		got := update(api.TraineePatch{
			Name:                api.Val("Ada Lovelace"),
			Email:               api.Val("Lovelace@Example.com"),
			PhoneNumber:         api.Val("+447700900123"),
			Password:            api.Val("$argon2id$new"),
			DateOfBirth:         api.Val(date(t, "10-12-1985")),
			ExpirationDate:      api.Val(date(t, "01-01-2031")),
			TrainerID:           api.Val(tn.TrainerA2),
			WeightUnit:          api.Val(api.UnitLB),
			ForcePasswordChange: api.Val(false),
		})
		want := *orig
		want.Name, want.Email, want.Username = "Ada Lovelace", "lovelace@example.com", "lovelace@example.com"
		want.PhoneNumber = ptr("+447700900123")
		want.DateOfBirth, want.ExpirationDate = ptr(date(t, "10-12-1985")), ptr(date(t, "01-01-2031"))
		want.TrainerID, want.WeightUnit, want.ForcePasswordChange = ptr(tn.TrainerA2), api.UnitLB, false
		if !reflect.DeepEqual(got, &want) {
			t.Fatalf("after update\n got %+v\nwant %+v", got, &want)
		}
		if h := storetest.UserColumn(t, s, orig.UserID, "password_hash"); h != "$argon2id$new" {
			t.Fatalf("password hash %q", h)
		}
		if sn := storetest.UserColumn(t, s, orig.UserID, "search_name"); sn != "ada lovelace" {
			t.Fatalf("search_name %q", sn)
		}

		// {} changes nothing, not even updated_at.
		before := traineeColumn(t, s, orig.ID, "updated_at")
		later(s, time.Second)
		if g := update(api.TraineePatch{}); !reflect.DeepEqual(g, &want) {
			t.Fatalf("empty patch changed %+v", g)
		}
		if after := traineeColumn(t, s, orig.ID, "updated_at"); after != before {
			t.Fatalf("empty patch wrote updated_at %s -> %s", before, after)
		}

		// Null clears the nullable fields, one at a time.
		got = update(api.TraineePatch{PhoneNumber: api.Optional[string]{Set: true, Null: true}})
		if got.PhoneNumber != nil || got.DateOfBirth == nil {
			t.Fatalf("phone null: %+v", got)
		}
		got = update(api.TraineePatch{DateOfBirth: api.Optional[api.Date]{Set: true, Null: true}})
		if got.DateOfBirth != nil || got.ExpirationDate == nil {
			t.Fatalf("birth null: %+v", got)
		}
		got = update(api.TraineePatch{ExpirationDate: api.Optional[api.Date]{Set: true, Null: true}})
		if got.ExpirationDate != nil || got.Name != "Ada Lovelace" {
			t.Fatalf("expiration null: %+v", got)
		}

		// Refused changes leave the row alone.
		snapshot := storetest.MustGet(t, s, tn.A, orig.ID)
		_, err := s.UpdateTrainee(ctx, tn.A, orig.ID, api.TraineePatch{Name: api.Val("X"), TrainerID: api.Val(tn.TrainerB)})
		wantCode(t, err, api.CodeUnknownTrainer, "trainerId")
		_, err = s.UpdateTrainee(ctx, tn.A, orig.ID, api.TraineePatch{Name: api.Val("X"), Email: api.Val("bo@example.com")})
		wantConflict(t, err, "email")
		_, err = s.UpdateTrainee(ctx, tn.A, orig.ID, api.TraineePatch{Name: api.Val("X"), PhoneNumber: api.Val("+447700900999")})
		wantConflict(t, err, "phoneNumber")
		_, err = s.UpdateTrainee(ctx, tn.A, orig.ID, api.TraineePatch{Email: api.Val("tess@alpha.example.com")})
		wantConflict(t, err, "email")
		if g := storetest.MustGet(t, s, tn.A, orig.ID); !reflect.DeepEqual(g, snapshot) {
			t.Fatalf("refused update changed\n got %+v\nwant %+v", g, snapshot)
		}
		// Its own e-mail is not a conflict.
		update(api.TraineePatch{Email: api.Val(snapshot.Email)})

		if _, err := s.UpdateTrainee(ctx, tn.A, 999999, api.TraineePatch{Name: api.Val("X")}); !errors.Is(err, api.ErrNotFound) {
			t.Fatalf("unknown id: %v", err)
		}
	})
}

func TestSoftDeleteAndRestore(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		tn := storetest.SetupTenants(t, s)
		tr := storetest.MustCreate(t, s, tn.A, storetest.NewTrainee("Ada", "ada@example.com"))
		if traineeColumnNull(t, s, tr.ID, "deleted_at") != true {
			t.Fatal("deleted_at set on a live trainee")
		}

		del := api.TraineePatch{Enabled: api.Val(false)}
		first, err := s.UpdateTrainee(ctx, tn.A, tr.ID, del)
		if err != nil {
			t.Fatal(err)
		}
		if first.Enabled {
			t.Fatal("still enabled after delete")
		}
		if traineeColumnNull(t, s, tr.ID, "deleted_at") {
			t.Fatal("deleted_at not set")
		}
		deletedAt := traineeColumn(t, s, tr.ID, "deleted_at")
		later(s, time.Second)
		second, err := s.UpdateTrainee(ctx, tn.A, tr.ID, del)
		if err != nil {
			t.Fatalf("deleting again: %v", err)
		}
		if !reflect.DeepEqual(first, second) {
			t.Fatalf("delete again: %+v, first %+v", second, first)
		}
		if d := traineeColumn(t, s, tr.ID, "deleted_at"); d != deletedAt {
			t.Fatalf("deleting again moved deleted_at %s -> %s", deletedAt, d)
		}
		if g := storetest.MustGet(t, s, tn.A, tr.ID); g.Enabled {
			t.Fatal("GET of a deleted trainee shows enabled")
		}

		restored, err := s.UpdateTrainee(ctx, tn.A, tr.ID, api.TraineePatch{Enabled: api.Val(true)})
		if err != nil {
			t.Fatal(err)
		}
		if !restored.Enabled || !traineeColumnNull(t, s, tr.ID, "deleted_at") {
			t.Fatalf("restore: %+v", restored)
		}
		want := *tr
		if !reflect.DeepEqual(restored, &want) {
			t.Fatalf("restored\n got %+v\nwant %+v", restored, &want)
		}

		// Demo data may create deleted trainees.
		nt := storetest.NewTrainee("Born Deleted", "born@example.com")
		nt.Enabled = false
		bd := storetest.MustCreate(t, s, tn.A, nt)
		if bd.Enabled || traineeColumnNull(t, s, bd.ID, "deleted_at") {
			t.Fatalf("created disabled: %+v", bd)
		}
	})
}

// Company B, acting on company A's trainee, finds nothing and changes
// nothing, whatever the method.
func TestTenantIsolation(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		tn := storetest.SetupTenants(t, s)
		nt := storetest.NewTrainee("Ada Park", "ada@example.com")
		nt.PhoneNumber = ptr("+447700900123")
		nt.ExpirationDate = ptr(date(t, "01-01-2020"))
		a := storetest.MustCreate(t, s, tn.A, nt)
		hash := storetest.UserColumn(t, s, a.UserID, "password_hash")
		updated := traineeColumn(t, s, a.ID, "updated_at")

		if _, err := s.Trainee(ctx, tn.B, a.ID); !errors.Is(err, api.ErrNotFound) {
			t.Errorf("Trainee as B: %v", err)
		}
		patches := map[string]api.TraineePatch{
			"everything": {
				Name: api.Val("Mallory"), Email: api.Val("mallory@example.com"), PhoneNumber: api.Val("+447700900666"),
				Password: api.Val("stolen"), DateOfBirth: api.Val(date(t, "01-01-1990")),
				ExpirationDate: api.Val(date(t, "01-01-2040")), TrainerID: api.Val(tn.TrainerB),
				WeightUnit: api.Val(api.UnitLB), ForcePasswordChange: api.Val(false),
			},
			"nulls": {
				PhoneNumber:    api.Optional[string]{Set: true, Null: true},
				DateOfBirth:    api.Optional[api.Date]{Set: true, Null: true},
				ExpirationDate: api.Optional[api.Date]{Set: true, Null: true},
			},
			"delete":  {Enabled: api.Val(false)},
			"restore": {Enabled: api.Val(true)},
			"empty":   {},
		}
		for name, p := range patches {
			if _, err := s.UpdateTrainee(ctx, tn.B, a.ID, p); !errors.Is(err, api.ErrNotFound) {
				t.Errorf("UpdateTrainee %s as B: %v", name, err)
			}
		}
		for _, status := range []string{api.StatusLive, api.StatusActive, api.StatusExpired, api.StatusDeleted, api.StatusAll} {
			for _, q := range []api.Search{
				{Query: ""},
				{Query: "ada"},
				{Query: "example.com"},
				{Query: "7700900123", Digits: "7700900123"},
			} {
				q.Status, q.Size, q.Sort, q.Today = status, 100, api.SortID, date(t, "01-06-2026")
				got, total, err := s.SearchTrainees(ctx, tn.B, q)
				if err != nil || len(got) != 0 || total != 0 {
					t.Errorf("search %+v as B: %d rows, total %d, %v", q, len(got), total, err)
				}
			}
		}
		// B cannot hang its trainee on A's trainer.
		foreign := storetest.NewTrainee("Mallory", "mallory@example.com")
		foreign.TrainerID = ptr(tn.TrainerA)
		_, err := s.CreateTrainee(ctx, tn.B, foreign)
		wantCode(t, err, api.CodeUnknownTrainer, "trainerId")

		if g := storetest.MustGet(t, s, tn.A, a.ID); !reflect.DeepEqual(g, a) {
			t.Errorf("A's trainee changed\n got %+v\nwant %+v", g, a)
		}
		if h := storetest.UserColumn(t, s, a.UserID, "password_hash"); h != hash {
			t.Errorf("A's password hash changed")
		}
		if u := traineeColumn(t, s, a.ID, "updated_at"); u != updated {
			t.Errorf("A's trainee written: updated_at %s -> %s", updated, u)
		}
		if n := storetest.Count(t, s, "trainees", "company_id = ?", tn.B); n != 0 {
			t.Errorf("%d trainees in B", n)
		}
	})
}

func traineeColumn(t *testing.T, s *store.Store, id int64, column string) string {
	t.Helper()
	var v *string
	if err := store.DB(s).NewSelect().Table("trainees").ColumnExpr("CAST("+column+" AS TEXT)").Where("id = ?", id).Scan(ctx, &v); err != nil {
		t.Fatal(err)
	}
	if v == nil {
		return "<null>"
	}
	return *v
}

func traineeColumnNull(t *testing.T, s *store.Store, id int64, column string) bool {
	return traineeColumn(t, s, id, column) == "<null>"
}

// later moves the store's clock d ahead of the real one, so that anything
// written from now on carries a later time than what was written before.
func later(s *store.Store, d time.Duration) {
	store.SetNow(s, func() time.Time { return time.Now().Add(d) })
}

// A create's statements run prepared, with their values as parameters
// (store/hot.go); the times they store must be the very values bun's own
// writes store at the same instant: SQLite keeps times as text, and the
// feed, the outbox and the sorts compare them.
func TestPreparedWritesStoreTimesAsBunDoes(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		now := time.Date(2026, 5, 4, 3, 2, 1, 123456000, time.FixedZone("X", 5*3600))
		store.SetNow(s, func() time.Time { return now })
		tn := storetest.SetupTenants(t, s)
		if _, err := s.CreateWebhook(ctx, tn.A, "http://127.0.0.1:9/hook", nil, api.GenerateWebhookSecret()); err != nil {
			t.Fatal(err)
		}
		tr := storetest.MustCreate(t, s, tn.A, storetest.NewTrainee("Time Stamp", "stamp@example.com"))
		// An update, written by bun with its values in the text.
		if _, err := s.UpdateTrainee(ctx, tn.A, tr.ID, api.TraineePatch{Name: api.Val("Time Stamped")}); err != nil {
			t.Fatal(err)
		}
		var byBun string
		db := store.DB(s)
		if err := db.NewRaw("SELECT CAST(updated_at AS TEXT) FROM trainees WHERE id = ?", tr.ID).Scan(ctx, &byBun); err != nil {
			t.Fatal(err)
		}
		for what, query := range map[string]string{
			"trainees.created_at":                "SELECT CAST(created_at AS TEXT) FROM trainees WHERE id = ?",
			"users.created_at":                   "SELECT CAST(u.created_at AS TEXT) FROM users AS u JOIN trainees AS t ON t.user_id = u.id WHERE t.id = ?",
			"webhook_events.created_at":          "SELECT CAST(created_at AS TEXT) FROM webhook_events WHERE trainee_id = ? AND type = 'trainee.created'",
			"webhook_deliveries.next_attempt_at": "SELECT CAST(d.next_attempt_at AS TEXT) FROM webhook_deliveries AS d JOIN webhook_events AS e ON e.id = d.event_id WHERE e.trainee_id = ? AND e.type = 'trainee.created'",
		} {
			var got string
			if err := db.NewRaw(query, tr.ID).Scan(ctx, &got); err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			if got != byBun {
				t.Errorf("%s is %q, bun writes %q at the same instant", what, got, byBun)
			}
		}
	})
}
