package common

import (
	"context"
	"time"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/client"
)

// Client is what the TUI needs of the API; *client.Client implements it.
type Client interface {
	SearchTrainees(ctx context.Context, p client.SearchParams) (*api.TraineePage, error)
	Trainee(ctx context.Context, id int64) (*api.Trainee, error)
	TraineeWithETag(ctx context.Context, id int64) (*api.Trainee, string, error)
	// TrainerStats is the dashboard's counts, of one trainer's trainees
	// (0: the company's).
	TrainerStats(ctx context.Context, trainerID int64) (*api.TraineeStats, error)
	CreateTrainee(ctx context.Context, r api.CreateRequest) (*api.Trainee, error)
	UpdateTrainee(ctx context.Context, id int64, p api.TraineePatch) (*api.Trainee, error)
	UpdateTraineeIf(ctx context.Context, id int64, etag string, p api.TraineePatch) (*api.Trainee, string, error)
	DeleteTrainee(ctx context.Context, id int64) (*api.Trainee, error)
	RestoreTrainee(ctx context.Context, id int64) (*api.Trainee, error)
	WeightHistory(ctx context.Context, id int64, r client.TrackedRange) (*api.WeightHistory, error)
	Measurements(ctx context.Context, id int64, r client.TrackedRange, typ string) (*api.Measurements, error)
	Nutrition(ctx context.Context, id int64, day api.Date) (*api.Nutrition, error)
	AverageSteps(ctx context.Context, id int64) (*api.AverageSteps, error)
	Trainers(ctx context.Context) ([]api.TrainerSummary, error)
	// TrainersCounted is Trainers with their trainee counts (the Settings
	// page's table): a pass over the company's trainees on the server.
	TrainersCounted(ctx context.Context) ([]api.TrainerSummary, error)

	Webhooks(ctx context.Context) ([]*api.Webhook, error)
	WebhookDeliveries(ctx context.Context, id int64, p client.ListParams) (*api.WebhookDeliveries, error)
	TestWebhook(ctx context.Context, id int64) (*api.WebhookTestResult, error)
	Redeliver(ctx context.Context, eventID string) (int, error)
	Automations(ctx context.Context, p client.ListParams) (*api.AutomationPage, error)
	AutomationRuns(ctx context.Context, id int64, p client.ListParams) (*api.AutomationRunPage, error)
	Events(ctx context.Context, p client.EventParams) (*api.EventPage, error)

	// Company administration: the Settings page (admin keys).
	Keys(ctx context.Context, state string) ([]*api.APIKey, error)
	CreateKey(ctx context.Context, k api.NewKey) (*api.KeyEnvelope, error)
	RotateKey(ctx context.Context, id int64, overlap *time.Duration) (*api.KeyEnvelope, error)
	RevokeKey(ctx context.Context, id int64) (*api.APIKey, error)
	UpdateKey(ctx context.Context, id int64, p api.KeyPatch) (*api.APIKey, error)
	CreateTrainer(ctx context.Context, t api.NewTrainer) (*api.TrainerSummary, error)
	UpdateTrainer(ctx context.Context, id int64, p api.TrainerPatch) (*api.TrainerSummary, error)
	// DeactivateTrainer's answer says what it did: the trainees moved
	// and the keys it disabled.
	DeactivateTrainer(ctx context.Context, id int64, reassignTo *int64) (*api.TrainerEnvelope, error)
	ReassignTrainees(ctx context.Context, from, to int64) (*api.ReassignResult, error)
	Company(ctx context.Context) (*api.Company, error)
	UpdateCompany(ctx context.Context, p api.CompanyPatch) (*api.Company, error)
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
