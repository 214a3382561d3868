package tui

import (
	"context"
	"fmt"
	"iter"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/client"
	"github.com/traineed/traineed/tui/internal/common"
)

// adminFake is a company's administration in memory (its keys, trainers
// and settings) over a real client for everything else: the Settings
// page's tests set up the state they show, and make a call fail with the
// refusal they check.
type adminFake struct {
	common.Client

	mu       sync.Mutex
	keys     []*api.APIKey
	trainers []api.TrainerSummary
	// deleted are the trainers' soft-deleted trainees, by trainer: not
	// in their counts, moved with the live ones.
	deleted map[int64]int
	company api.Company
	nextID  int64
	// fail makes the next call of a method (by name) answer this error.
	fail  map[string]error
	calls []string // the changes made, "RotateKey 3"...
}

// fakeNow is when the fake's keys were made and used.
var fakeNow = time.Date(2026, 11, 20, 9, 30, 0, 0, time.UTC)

func newAdminFake(c common.Client) *adminFake {
	one, two, three, none := 20, 18, 17, 0
	maya := int64(1)
	mayaName := "Maya Brooks"
	used := fakeNow
	expires := time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)
	system := &api.Actor{Type: api.ActorSystem}
	return &adminFake{Client: c, nextID: 10, fail: map[string]error{}, deleted: map[int64]int{1: 4},
		company: api.Company{ID: 1, Name: "Demo Fitness", TimeZone: "Europe/London", CreatedAt: fakeNow},
		keys: []*api.APIKey{
			{ID: 1, Name: "demo", Prefix: "pk_demo1", Scope: api.KeyScopeAdmin, CreatedAt: fakeNow, CreatedBy: system, LastUsedAt: &used, State: api.KeyActive},
			{ID: 2, Name: "crm-export", Prefix: "pk_crm02", Scope: api.KeyScopeRead, CreatedAt: fakeNow, CreatedBy: system, ExpiresAt: &expires, State: api.KeyActive},
			{ID: 3, Name: "maya-phone", Prefix: "pk_maya3", Scope: api.KeyScopeFull, TrainerID: &maya, TrainerName: &mayaName,
				OwnTraineesOnly: true, CreatedAt: fakeNow, CreatedBy: &api.Actor{Type: api.ActorKey, ID: 1, Name: "demo"}, State: api.KeyActive},
		},
		trainers: []api.TrainerSummary{
			{ID: 1, Name: "Maya Brooks", Email: "maya.brooks@demo-fitness.example", Active: true, Trainees: &one},
			{ID: 2, Name: "Tomás Rivera", Email: "tomas.rivera@demo-fitness.example", Active: true, Trainees: &two},
			{ID: 3, Name: "Hannah Okoye", Email: "hannah.okoye@demo-fitness.example", Active: true, Trainees: &three},
			{ID: 4, Name: "Leo Park", Email: "leo.park@demo-fitness.example", Active: false, Trainees: &none},
		},
	}
}

// refusal is the error the client returns for a refused request.
func refusal(status, code int, msg string) error {
	return &client.RejectedError{CallInfo: client.CallInfo{Status: status}, ErrorBody: api.ErrorBody{ErrorCode: code, Message: msg}}
}

var (
	errNotAdmin       = refusal(http.StatusForbidden, api.CodeAdminScope, "this route needs an admin key")
	errOwnTrainees    = refusal(http.StatusForbidden, api.CodeOwnTrainees, "this key acts for its trainer's trainees only")
	errReadOnly       = refusal(http.StatusForbidden, api.CodeReadOnlyKey, "this API key is read-only")
	errLastAdmin      = refusal(http.StatusConflict, api.CodeLastAdminKey, "key 1 is the company's last enabled admin key")
	errHasTrainees    = refusal(http.StatusConflict, api.CodeTrainerHasTrainees, "trainer 2 has 18 trainees")
	errAlreadyRevoked = refusal(http.StatusConflict, api.CodeKeyRevoked, "key 2 is revoked")
)

// called records a change and returns the failure set for it, if any.
func (f *adminFake) called(method string, id int64) error {
	f.calls = append(f.calls, fmt.Sprintf("%s %d", method, id))
	err := f.fail[method]
	delete(f.fail, method)
	return err
}

func (f *adminFake) failNext(method string, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.fail[method] = err
}

func (f *adminFake) changes() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.calls)
}

// refused is the server's refusal of the key in use (key 1, the demo
// key) once it is revoked or disabled: nil while it works.
func (f *adminFake) refused() error {
	if k := f.key(1); k.State == api.KeyRevoked || k.State == api.KeyDisabled {
		return &client.AuthRefusedError{}
	}
	return nil
}

func (f *adminFake) ListKeys(ctx context.Context, p client.KeyListParams, _ ...client.RequestOption) iter.Seq2[*api.APIKey, error] {
	return slices2(f.keysOf(ctx, p.State))
}

// slices2 is the iterator of a list read whole.
func slices2[T any](ts []T, err error) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		if err != nil {
			var zero T
			yield(zero, err)
			return
		}
		for _, t := range ts {
			if !yield(t, nil) {
				return
			}
		}
	}
}

func (f *adminFake) keysOf(ctx context.Context, state string) ([]*api.APIKey, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.refused(); err != nil {
		return nil, err
	}
	if err := f.fail["Keys"]; err != nil {
		return nil, err
	}
	var out []*api.APIKey
	for _, k := range f.keys {
		if k.State != api.KeyRevoked {
			c := *k
			out = append(out, &c)
		}
	}
	return out, nil
}

func (f *adminFake) CreateKey(ctx context.Context, k api.NewKey, _ ...client.RequestOption) (*api.KeyEnvelope, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.nextID++
	if err := f.called("CreateKey", f.nextID); err != nil {
		return nil, err
	}
	key := &api.APIKey{ID: f.nextID, Name: k.Name, Prefix: "pk_new" + fmt.Sprint(f.nextID), Scope: k.Scope, TrainerID: k.TrainerID,
		OwnTraineesOnly: k.OwnTraineesOnly, ExpiresAt: k.ExpiresAt, CreatedAt: fakeNow, State: api.KeyActive}
	if k.TrainerID != nil {
		for _, t := range f.trainers {
			if t.ID == *k.TrainerID {
				key.TrainerName = &t.Name
			}
		}
	}
	f.keys = append(f.keys, key)
	return &api.KeyEnvelope{Key: key, Secret: "pk_secretOfKey" + fmt.Sprint(f.nextID)}, nil
}

func (f *adminFake) key(id int64) *api.APIKey {
	for _, k := range f.keys {
		if k.ID == id {
			return k
		}
	}
	return nil
}

func (f *adminFake) RotateKey(ctx context.Context, id int64, overlap *time.Duration, _ ...client.RequestOption) (*api.KeyEnvelope, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.called("RotateKey", id); err != nil {
		return nil, err
	}
	k := f.key(id)
	until := fakeNow.Add(api.DefaultKeyOverlap)
	k.PreviousSecretExpiresAt = &until
	c := *k
	return &api.KeyEnvelope{Key: &c, Secret: "pk_rotatedSecret" + fmt.Sprint(id)}, nil
}

func (f *adminFake) RevokeKey(ctx context.Context, id int64, _ ...client.RequestOption) (*api.APIKey, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.called("RevokeKey", id); err != nil {
		return nil, err
	}
	k := f.key(id)
	k.State = api.KeyRevoked
	return k, nil
}

// Trainers are the trainers without their counts, as the server answers
// GET /trainers; with Counts, with them (counts=true).
func (f *adminFake) Trainers(ctx context.Context, p client.TrainerParams, _ ...client.RequestOption) ([]api.TrainerSummary, error) {
	ts, err := f.trainersCounted(ctx)
	for i := range ts {
		if !p.Counts {
			ts[i].Trainees = nil
		}
	}
	return ts, err
}

func (f *adminFake) trainersCounted(ctx context.Context) ([]api.TrainerSummary, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.refused(); err != nil {
		return nil, err
	}
	if err := f.fail["Trainers"]; err != nil {
		return nil, err
	}
	return slices.Clone(f.trainers), nil
}

func (f *adminFake) CreateTrainer(ctx context.Context, t api.NewTrainer, _ ...client.RequestOption) (*api.TrainerSummary, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.nextID++
	if err := f.called("CreateTrainer", f.nextID); err != nil {
		return nil, err
	}
	zero := 0
	ts := api.TrainerSummary{ID: f.nextID, Name: t.Name, Email: t.Email, Active: true, Trainees: &zero}
	f.trainers = append(f.trainers, ts)
	return &ts, nil
}

func (f *adminFake) trainer(id int64) *api.TrainerSummary {
	for i := range f.trainers {
		if f.trainers[i].ID == id {
			return &f.trainers[i]
		}
	}
	return nil
}

// move gives from's trainees to to, soft-deleted ones too, and returns
// how many moved.
func (f *adminFake) move(from, to *api.TrainerSummary) int {
	n := *from.Trainees
	sum := *to.Trainees + n
	zero := 0
	to.Trainees, from.Trainees = &sum, &zero
	gone := f.deleted[from.ID]
	f.deleted[to.ID] += gone
	delete(f.deleted, from.ID)
	return n + gone
}

// DeactivateTrainer moves the trainer's trainees to reassignTo and
// disables the keys bound to the trainer, as the server does.
func (f *adminFake) DeactivateTrainer(ctx context.Context, id int64, reassignTo *int64, _ ...client.RequestOption) (*api.TrainerEnvelope, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.called("DeactivateTrainer", id); err != nil {
		return nil, err
	}
	t := f.trainer(id)
	env := &api.TrainerEnvelope{}
	if reassignTo != nil {
		n := f.move(t, f.trainer(*reassignTo))
		env.Moved = &n
		f.calls[len(f.calls)-1] += fmt.Sprintf(" to %d", *reassignTo)
	}
	for _, k := range f.keys {
		if k.TrainerID != nil && *k.TrainerID == id && k.State != api.KeyRevoked && k.State != api.KeyDisabled {
			k.State = api.KeyDisabled
			env.DisabledKeys = append(env.DisabledKeys, k.ID)
		}
	}
	t.Active = false
	c := *t
	env.Trainer = &c
	return env, nil
}

// UpdateKey enables or disables a key.
func (f *adminFake) UpdateKey(ctx context.Context, id int64, p api.KeyPatch, _ ...client.RequestOption) (*api.APIKey, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.called("UpdateKey", id); err != nil {
		return nil, err
	}
	k := f.key(id)
	if p.Enabled != nil {
		f.calls[len(f.calls)-1] += fmt.Sprintf(" enabled %v", *p.Enabled)
		k.State = api.KeyActive
		if !*p.Enabled {
			k.State = api.KeyDisabled
		}
	}
	c := *k
	return &c, nil
}

func (f *adminFake) UpdateTrainer(ctx context.Context, id int64, p api.TrainerPatch, _ ...client.RequestOption) (*api.TrainerSummary, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.called("UpdateTrainer", id); err != nil {
		return nil, err
	}
	t := f.trainer(id)
	if p.ReassignTo != nil {
		f.move(t, f.trainer(*p.ReassignTo))
		f.calls[len(f.calls)-1] += fmt.Sprintf(" to %d", *p.ReassignTo)
	}
	if p.Active != nil {
		t.Active = *p.Active
		f.calls[len(f.calls)-1] += fmt.Sprintf(" active %v", *p.Active)
	}
	c := *t
	return &c, nil
}

func (f *adminFake) ReassignTrainees(ctx context.Context, from, to int64, _ ...client.RequestOption) (*api.ReassignResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.called("ReassignTrainees", from); err != nil {
		return nil, err
	}
	f.calls[len(f.calls)-1] += fmt.Sprintf(" to %d", to)
	a, b := f.trainer(from), f.trainer(to)
	n := f.move(a, b)
	return &api.ReassignResult{From: a, To: b, Moved: n}, nil
}

func (f *adminFake) Company(ctx context.Context, _ ...client.RequestOption) (*api.Company, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.refused(); err != nil {
		return nil, err
	}
	if err := f.fail["Company"]; err != nil {
		return nil, err
	}
	c := f.company
	return &c, nil
}

func (f *adminFake) UpdateCompany(ctx context.Context, p api.CompanyPatch, _ ...client.RequestOption) (*api.Company, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.called("UpdateCompany", 1); err != nil {
		return nil, err
	}
	if p.Name != nil {
		f.company.Name = *p.Name
		f.calls[len(f.calls)-1] += " name " + *p.Name
	}
	if p.TimeZone != nil {
		f.company.TimeZone = *p.TimeZone
		f.calls[len(f.calls)-1] += " zone " + *p.TimeZone
	}
	c := f.company
	return &c, nil
}
