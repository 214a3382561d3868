package storetest

import (
	"context"
	"database/sql"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
	"github.com/uptrace/bun/dialect/sqlitedialect"
	_ "modernc.org/sqlite" // the second handle on SQLite

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/store"
)

// Tenants is two companies with trainers: A (Europe/London) with two, B
// (UTC) with one.
type Tenants struct {
	A, B                int64
	TrainerA, TrainerA2 int64
	TrainerB            int64
}

// SetupTenants creates the companies and trainers of Tenants.
func SetupTenants(t testing.TB, s *store.Store) Tenants {
	t.Helper()
	ctx := context.Background()
	a, err := s.CreateCompany(ctx, "Alpha Gym", "Europe/London")
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.CreateCompany(ctx, "Beta Gym", "")
	if err != nil {
		t.Fatal(err)
	}
	return Tenants{
		A: a.ID, B: b.ID,
		TrainerA:  MustTrainer(t, s, a.ID, "Tess Trainer", "tess@alpha.example.com"),
		TrainerA2: MustTrainer(t, s, a.ID, "Tom Trainer", "tom@alpha.example.com"),
		TrainerB:  MustTrainer(t, s, b.ID, "Bea Trainer", "bea@beta.example.com"),
	}
}

// NewTrainee is a valid, live trainee created through an API key.
func NewTrainee(name, email string) api.NewTrainee {
	return api.NewTrainee{
		Name:          name,
		Email:         email,
		PasswordHash:  "$argon2id$test",
		WeightUnit:    api.UnitKG,
		CreatedByType: api.CreatedByAdmin,
		Enabled:       true,
	}
}

// MustTrainer creates a trainer and returns its id.
func MustTrainer(t testing.TB, s *store.Store, company int64, name, email string) int64 {
	t.Helper()
	tr, err := s.CreateTrainer(context.Background(), company, name, email)
	if err != nil {
		t.Fatal(err)
	}
	return tr.ID
}

// MustCreate creates a trainee.
func MustCreate(t testing.TB, s *store.Store, company int64, nt api.NewTrainee) *api.Trainee {
	t.Helper()
	tr, err := s.CreateTrainee(context.Background(), company, nt)
	if err != nil {
		t.Fatalf("create %s: %v", nt.Email, err)
	}
	return tr
}

// MustGet reads a trainee.
func MustGet(t testing.TB, s *store.Store, company, id int64) *api.Trainee {
	t.Helper()
	tr, err := s.Trainee(context.Background(), company, id)
	if err != nil {
		t.Fatalf("get %d: %v", id, err)
	}
	return tr
}

// Count counts the rows of a table matching where, through DB.
func Count(t testing.TB, s *store.Store, table, where string, args ...any) int {
	t.Helper()
	n, err := DB(t, s).NewSelect().Table(table).Where(where, args...).Count(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return int(n)
}

var (
	urls    sync.Map // *store.Store -> its URL, for the stores opened here
	handles sync.Map // *store.Store -> *bun.DB
)

// DB returns a second handle on the database of s (a store this package
// opened), for tests to check what is stored or to arrange what no method
// writes. The store itself keeps its handle to itself.
func DB(t testing.TB, s *store.Store) *bun.DB {
	t.Helper()
	if h, ok := handles.Load(s); ok {
		return h.(*bun.DB)
	}
	u, ok := urls.Load(s)
	if !ok {
		t.Fatal("storetest.DB: the store was not opened by storetest (use storetest.Open)")
	}
	db := openRaw(t, u.(string))
	if h, loaded := handles.LoadOrStore(s, db); loaded {
		_ = db.Close()
		return h.(*bun.DB)
	}
	return db
}

// forget closes the second handle of s, if any, and forgets s.
func forget(s *store.Store) {
	if h, ok := handles.LoadAndDelete(s); ok {
		_ = h.(*bun.DB).Close()
	}
	urls.Delete(s)
}

func openRaw(t testing.TB, url string) *bun.DB {
	t.Helper()
	var db *bun.DB
	if path, ok := strings.CutPrefix(url, "sqlite:"); ok {
		sqldb, err := sql.Open("sqlite", path+"?_pragma=busy_timeout(10000)")
		if err != nil {
			t.Fatal(err)
		}
		db = bun.NewDB(sqldb, sqlitedialect.New())
	} else {
		sqldb, err := sql.Open("pgx", url)
		if err != nil {
			t.Fatal(err)
		}
		db = bun.NewDB(sqldb, pgdialect.New())
	}
	return db
}

// AddWebhook adds an endpoint of company subscribed to events (none: all)
// and returns its id and secret.
func AddWebhook(t testing.TB, s *store.Store, company int64, url string, events ...string) (int64, string) {
	t.Helper()
	secret := api.GenerateWebhookSecret()
	w, err := s.CreateWebhook(context.Background(), company, url, events, secret)
	if err != nil {
		t.Fatal(err)
	}
	return w.ID, secret
}

// UserColumn reads one column of a user row (a trainee's or a trainer's).
func UserColumn(t testing.TB, s *store.Store, userID int64, column string) string {
	t.Helper()
	var v string
	if err := DB(t, s).NewSelect().Table("users").ColumnExpr(column).Where("id = ?", userID).Scan(context.Background(), &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// KeyAndTrainee creates a company with one API key and one trainee, and
// returns the key and the path of GET /public-api/trainees/{id} for that
// trainee: the set-up of the benchmarks of a single GET by id.
func KeyAndTrainee(t testing.TB, s *store.Store) (key, path string) {
	t.Helper()
	ctx := context.Background()
	co, err := s.CreateCompany(ctx, "Bench", "UTC")
	if err != nil {
		t.Fatal(err)
	}
	MustTrainer(t, s, co.ID, "Bench Coach", "coach"+strconv.FormatInt(co.ID, 10)+"@key.bench.example.com")
	key = api.GenerateKey()
	if _, err := s.CreateKey(ctx, co.ID, "k", api.HashKey(key), api.KeyDisplayPrefix(key)); err != nil {
		t.Fatal(err)
	}
	tr := MustCreate(t, s, co.ID, NewTrainee("Bench Trainee", "bench@example.com"))
	return key, api.PathTrainees + "/" + strconv.FormatInt(tr.ID, 10)
}

// GetOK serves GET path with key through h in process (no network) and
// fails unless the answer is a 200: one request of the GET-by-id
// benchmarks, with KeyAndTrainee's key and path.
func GetOK(t testing.TB, h http.Handler, path, key string) {
	req := httptest.NewRequest(http.MethodGet, path, nil)
	req.Header.Set(api.HeaderAPIKey, key)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	if w.Code != http.StatusOK {
		t.Fatalf("GET %s: status %d", path, w.Code)
	}
}

// TerminateBackends ends every PostgreSQL backend of s's pool (the
// connections named application_name=traineed in its database), as a
// restart, a failover or an operator's pg_terminate_backend would, and
// waits until they are gone. It returns how many it ended.
func TerminateBackends(t testing.TB, s *store.Store) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	db := DB(t, s)
	var pids []int64
	err := db.NewRaw("SELECT pid FROM pg_stat_activity WHERE datname = current_database() "+
		"AND application_name = 'traineed' AND pid <> pg_backend_pid()").Scan(ctx, &pids)
	if err != nil {
		t.Fatalf("storetest: backends: %v", err)
	}
	for _, pid := range pids {
		if _, err := db.ExecContext(ctx, "SELECT pg_terminate_backend(?)", pid); err != nil {
			t.Fatalf("storetest: terminate %d: %v", pid, err)
		}
	}
	for {
		var left int
		err := db.NewRaw("SELECT count(*) FROM pg_stat_activity WHERE pid IN (?)", bun.In(pids)).Scan(ctx, &left)
		if err != nil || len(pids) == 0 {
			break
		}
		if left == 0 {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("storetest: %d backends still running after pg_terminate_backend", left)
		case <-time.After(5 * time.Millisecond):
		}
	}
	return len(pids)
}
