package commands_test

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/cmd/traineectl/internal/cmdutil"
	"github.com/traineed/traineed/cmd/traineectl/internal/config"
	"github.com/traineed/traineed/store/storetest"
)

// adminServer is the test server (company Acme, trainer Coach Carter, the
// full key "cli") with an admin key, "Laptop".
type adminServer struct {
	*testServer
	admin   string // the admin key's secret
	adminID int64
}

func newAdminServer(t *testing.T) *adminServer {
	t.Helper()
	srv := newServer(t)
	k, id := srv.newScopedKey(t, srv.companyID, "Laptop", api.KeyScopeAdmin)
	return &adminServer{testServer: srv, admin: k, adminID: id}
}

// newAdminKey is a new admin key of a company.
func (s *testServer) newAdminKey(t *testing.T, company int64) string {
	k, _ := s.newScopedKey(t, company, "Admin", api.KeyScopeAdmin)
	return k
}

// newScopedKey stores a key of a scope, as the operator's commands do.
func (s *testServer) newScopedKey(t *testing.T, company int64, name, scope string) (string, int64) {
	t.Helper()
	k := api.GenerateKey()
	ak, err := s.store.CreateScopedKey(context.Background(), company, name, scope, api.HashKey(k), api.KeyDisplayPrefix(k))
	must(t, err)
	return k, ak.ID
}

// storedKey is the key as the server holds it.
func (s *adminServer) storedKey(t *testing.T, id int64) *api.APIKey {
	t.Helper()
	k, err := s.store.CompanyKey(context.Background(), s.companyID, id)
	must(t, err)
	return k
}

// keyCount is how many keys of every state the company holds.
func (s *adminServer) keyCount(t *testing.T, h *harness) int {
	t.Helper()
	return len(decode[[]api.APIKey](t, h.run("keys", "list", "--state", "all", "--all", "-o", "json").expect(t, 0)))
}

// withoutKey is a harness over h's configuration directory whose key and
// address come from the profiles only.
func withoutKey(h *harness) *harness {
	env := maps.Clone(h.env)
	delete(env, cmdutil.EnvAPIKey)
	delete(env, cmdutil.EnvBaseURL)
	return &harness{t: h.t, env: env}
}

func readConfig(t *testing.T, h *harness) *config.File {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(h.env["XDG_CONFIG_HOME"], "traineectl", "config.yaml"))
	must(t, err)
	var c config.File
	must(t, yaml.Unmarshal(b, &c))
	return &c
}

// addTrainees stores n trainees of the trainer.
func (s *adminServer) addTrainees(t *testing.T, trainer int64, prefix string, n int) []int64 {
	t.Helper()
	var ids []int64
	for i := range n {
		nt := storetest.NewTrainee(fmt.Sprintf("%s %d", prefix, i), fmt.Sprintf("%s%d@example.com", strings.ToLower(prefix), i))
		nt.TrainerID = &trainer
		ids = append(ids, storetest.MustCreate(t, s.store, s.companyID, nt).ID)
	}
	return ids
}

// trainerOf is the trainer of a trainee, as the server holds it.
func (s *adminServer) trainerOf(t *testing.T, id int64) int64 {
	t.Helper()
	tr, err := s.store.Trainee(context.Background(), s.companyID, id)
	must(t, err)
	return *tr.TrainerID
}

// searchTrainer lists the trainees of a trainer (search trainerId=).
func searchTrainer(t *testing.T, h *harness, trainer string) []api.Trainee {
	t.Helper()
	var out []api.Trainee
	for _, tr := range decode[[]api.Trainee](t, h.run("search", "--all", "-o", "json").expect(t, 0)) {
		if tr.TrainerID != nil && fmt.Sprint(*tr.TrainerID) == trainer {
			out = append(out, tr)
		}
	}
	return out
}
