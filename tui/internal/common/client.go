package common

import (
	"context"
	"iter"
	"time"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/client"
)

// Client is what the TUI needs of the API; *client.Client implements it.
// Every call takes the client's per-call options (client.IfMatch for a
// conditional change, client.WithResponse for an ETag).
type Client interface {
	SearchTrainees(ctx context.Context, p client.SearchParams, opts ...client.RequestOption) (*api.TraineePage, error)
	Trainee(ctx context.Context, id int64, opts ...client.RequestOption) (*api.Trainee, error)
	// TraineeStats is the dashboard's counts, of one trainer's trainees
	// (0: the company's).
	TraineeStats(ctx context.Context, trainerID int64, opts ...client.RequestOption) (*api.TraineeStats, error)
	CreateTrainee(ctx context.Context, r api.CreateRequest, opts ...client.RequestOption) (*api.Trainee, error)
	UpdateTrainee(ctx context.Context, id int64, p api.TraineePatch, opts ...client.RequestOption) (*api.Trainee, error)
	DeleteTrainee(ctx context.Context, id int64, opts ...client.RequestOption) (*api.Trainee, error)
	WeightHistory(ctx context.Context, id int64, r client.TrackedRange, opts ...client.RequestOption) (*api.WeightHistory, error)
	Measurements(ctx context.Context, id int64, r client.TrackedRange, typ string, opts ...client.RequestOption) (*api.Measurements, error)
	Nutrition(ctx context.Context, id int64, day api.Date, opts ...client.RequestOption) (*api.Nutrition, error)
	AverageSteps(ctx context.Context, id int64, opts ...client.RequestOption) (*api.AverageSteps, error)
	// Steps is each day's step count over r (the Steps tab's chart).
	Steps(ctx context.Context, id int64, r client.TrackedRange, opts ...client.RequestOption) (*api.DailySteps, error)
	// Trainers with Counts adds their trainee counts (the Settings page's
	// table): a pass over the company's trainees on the server.
	Trainers(ctx context.Context, p client.TrainerParams, opts ...client.RequestOption) ([]api.TrainerSummary, error)

	ListWebhooks(ctx context.Context, p client.ListParams, opts ...client.RequestOption) iter.Seq2[*api.Webhook, error]
	WebhookDeliveries(ctx context.Context, id int64, p client.ListParams, opts ...client.RequestOption) (*api.WebhookDeliveries, error)
	TestWebhook(ctx context.Context, id int64, opts ...client.RequestOption) (*api.WebhookTestResult, error)
	Redeliver(ctx context.Context, eventID string, opts ...client.RequestOption) (int, error)
	ListAutomations(ctx context.Context, p client.ListParams, opts ...client.RequestOption) iter.Seq2[*api.Automation, error]
	AutomationRuns(ctx context.Context, id int64, p client.ListParams, opts ...client.RequestOption) (*api.AutomationRunPage, error)
	Events(ctx context.Context, p client.EventParams, opts ...client.RequestOption) (*api.EventPage, error)

	// Company administration: the Settings page (admin keys).
	ListKeys(ctx context.Context, p client.KeyListParams, opts ...client.RequestOption) iter.Seq2[*api.APIKey, error]
	CreateKey(ctx context.Context, k api.NewKey, opts ...client.RequestOption) (*api.KeyEnvelope, error)
	RotateKey(ctx context.Context, id int64, overlap *time.Duration, opts ...client.RequestOption) (*api.KeyEnvelope, error)
	RevokeKey(ctx context.Context, id int64, opts ...client.RequestOption) (*api.APIKey, error)
	UpdateKey(ctx context.Context, id int64, p api.KeyPatch, opts ...client.RequestOption) (*api.APIKey, error)
	CreateTrainer(ctx context.Context, t api.NewTrainer, opts ...client.RequestOption) (*api.TrainerSummary, error)
	UpdateTrainer(ctx context.Context, id int64, p api.TrainerPatch, opts ...client.RequestOption) (*api.TrainerSummary, error)
	// DeactivateTrainer's answer says what it did: the trainees moved
	// and the keys it disabled.
	DeactivateTrainer(ctx context.Context, id int64, reassignTo *int64, opts ...client.RequestOption) (*api.TrainerEnvelope, error)
	ReassignTrainees(ctx context.Context, from, to int64, opts ...client.RequestOption) (*api.ReassignResult, error)
	Company(ctx context.Context, opts ...client.RequestOption) (*api.Company, error)
	UpdateCompany(ctx context.Context, p api.CompanyPatch, opts ...client.RequestOption) (*api.Company, error)
}

// Options are what of tui.Options the pages and components read (with
// the defaults applied; tui.Options documents each).
type Options struct {
	Today    func() api.Date
	PageSize int
	Debounce time.Duration
	NoColor  bool
	Zone     *time.Location
	Server   string
	ReadOnly bool
	Key      *api.CurrentKey
}
