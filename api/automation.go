package api

import (
	"time"
)

// PathAutomations is the automations resource.
const PathAutomations = "/public-api/automations"

// Automation trigger types: events of the transactional outbox, and time
// triggers judged on the company's calendar day.
const (
	TriggerTraineeCreated        = "TRAINEE_CREATED"
	TriggerTraineeUpdated        = "TRAINEE_UPDATED"
	TriggerTraineeDeleted        = "TRAINEE_DELETED"
	TriggerTraineeRestored       = "TRAINEE_RESTORED"
	TriggerExpirationApproaching = "EXPIRATION_APPROACHING"
	TriggerTraineeExpired        = "TRAINEE_EXPIRED"
	TriggerInactive              = "INACTIVE"
)

// TriggerTypes lists every trigger type, in the order they are shown.
var TriggerTypes = []string{TriggerTraineeCreated, TriggerTraineeUpdated, TriggerTraineeDeleted, TriggerTraineeRestored,
	TriggerExpirationApproaching, TriggerTraineeExpired, TriggerInactive}

// IsTimeTrigger reports whether typ is evaluated on the calendar rather than
// fired by an event.
func IsTimeTrigger(typ string) bool {
	return typ == TriggerExpirationApproaching || typ == TriggerTraineeExpired || typ == TriggerInactive
}

// TriggerOfEvent is the event trigger a webhook event type fires ("" for
// none).
func TriggerOfEvent(eventType string) string {
	switch eventType {
	case EventTraineeCreated:
		return TriggerTraineeCreated
	case EventTraineeUpdated:
		return TriggerTraineeUpdated
	case EventTraineeDeleted:
		return TriggerTraineeDeleted
	case EventTraineeRestored:
		return TriggerTraineeRestored
	}
	return ""
}

// Bounds of trigger.days.
const (
	MaxApproachingDays = 90
	MaxInactiveDays    = 365
	// CatchUpDays is how long after its day a time trigger missed while no
	// server ran still fires (if it still holds).
	CatchUpDays = 7
)

// Automation action types. EMAIL, SMS and PUSH are reserved (1013).
const (
	ActionWebhook        = "WEBHOOK"
	ActionDisableTrainee = "DISABLE_TRAINEE"
	ActionEmail          = "EMAIL"
	ActionSMS            = "SMS"
	ActionPush           = "PUSH"
)

// ActionTypes lists the action types that work.
var ActionTypes = []string{ActionWebhook, ActionDisableTrainee}

// ReservedActionTypes are named by the interface and reserved for a later
// release: 400 with errorCode 1013.
var ReservedActionTypes = []string{ActionEmail, ActionSMS, ActionPush}

// ConditionStatuses are the values of conditions.status.
var ConditionStatuses = []string{StatusActive, StatusExpired, StatusLive}

// EventAutomationFired is the type of the body a WEBHOOK automation sends.
const EventAutomationFired = "automation.fired"

// Run outcomes.
const (
	OutcomePending   = "pending"   // a WEBHOOK delivery not finished yet
	OutcomeDelivered = "delivered" // a WEBHOOK delivery a receiver accepted
	OutcomeFailed    = "failed"    // a WEBHOOK delivery whose last attempt failed
	OutcomeDisabled  = "disabled"  // DISABLE_TRAINEE soft-deleted the trainee
	OutcomeSkipped   = "skipped"   // DISABLE_TRAINEE found the trainee deleted already
	// OutcomeDropped is a WEBHOOK run whose delivery was dropped before it
	// finished: its automation was deleted, or its action changed away
	// from WEBHOOK. Its error keeps the last attempt's, if there was one.
	OutcomeDropped = "dropped"
)

// AutomationTrigger is what fires an automation; Days is null for event
// triggers and TRAINEE_EXPIRED.
type AutomationTrigger struct {
	Type string `json:"type"`
	Days *int   `json:"days"`
}

// AutomationConditions must all hold for the automation to fire; a null
// member does not filter.
type AutomationConditions struct {
	TrainerID *int64  `json:"trainerId"`
	Status    *string `json:"status"`
}

// AutomationAction is what the action needs: the URL of a WEBHOOK.
type AutomationAction struct {
	URL *string `json:"url"`
}

// Automation is the automations resource. Secret is present only in the
// response of a create: it signs the WEBHOOK deliveries and is never shown
// again.
type Automation struct {
	ID         int64                `json:"id"`
	Name       string               `json:"name"`
	Enabled    bool                 `json:"enabled"`
	Trigger    AutomationTrigger    `json:"trigger"`
	Conditions AutomationConditions `json:"conditions"`
	ActionType string               `json:"actionType"`
	Action     AutomationAction     `json:"action"`
	CreatedAt  time.Time            `json:"createdAt"`
	UpdatedAt  time.Time            `json:"updatedAt"`
	LastRunAt  *time.Time           `json:"lastRunAt"`
	RunCount   int64                `json:"runCount"`
	// DisabledReason says why the server disabled the automation (its URL
	// answered 410 Gone, or points where the server does not send); null
	// otherwise. Enabling it again clears it.
	DisabledReason *string `json:"disabledReason"`
	Secret         string  `json:"secret,omitempty"`
}

// AutomationEnvelope is the body of every single-automation response.
type AutomationEnvelope struct {
	Timestamp  int64       `json:"timestamp"`
	Automation *Automation `json:"automation"`
}

// AutomationPage is a page of automations, shaped like a search.
type AutomationPage struct {
	Timestamp int64         `json:"timestamp"`
	Content   []*Automation `json:"content"`
	Page      PageInfo      `json:"page"`
}

func (p *AutomationPage) Rows() []*Automation { return p.Content }
func (p *AutomationPage) Paging() CursorPage  { return p.Page.CursorPage }
func (p *AutomationPage) Counts() PageInfo    { return p.Page }

// AutomationRun is one firing: exactly one per occurrence.
type AutomationRun struct {
	ID           int64 `json:"id"`
	AutomationID int64 `json:"automationId"`
	TraineeID    int64 `json:"traineeId"`
	// TraineeName is the trainee's name as it is now (null where it is
	// not read: an automation's test, a trainee gone).
	TraineeName *string   `json:"traineeName" bun:"trainee_name"`
	FiredAt     time.Time `json:"firedAt"`
	Occurrence  string    `json:"occurrence"`
	Outcome     string    `json:"outcome"`
	Error       *string   `json:"error"`
}

// AutomationRunPage is a page of runs, newest first.
type AutomationRunPage struct {
	Timestamp int64            `json:"timestamp"`
	Content   []*AutomationRun `json:"content"`
	Page      PageInfo         `json:"page"`
}

func (p *AutomationRunPage) Rows() []*AutomationRun { return p.Content }
func (p *AutomationRunPage) Paging() CursorPage     { return p.Page.CursorPage }
func (p *AutomationRunPage) Counts() PageInfo       { return p.Page }

// AutomationFired is the body a WEBHOOK automation sends.
type AutomationFired struct {
	Type      string              `json:"type"`
	Timestamp int64               `json:"timestamp"`
	Data      AutomationFiredData `json:"data"`
}

// AutomationFiredData is the "data" member of AutomationFired.
type AutomationFiredData struct {
	Automation AutomationRef `json:"automation"`
	Trainee    *Trainee      `json:"trainee"`
}

// AutomationRef names the automation that fired.
type AutomationRef struct {
	ID      int64             `json:"id"`
	Name    string            `json:"name"`
	Trigger AutomationTrigger `json:"trigger"`
}

// AutomationSpec is a validated automation: what the store keeps.
type AutomationSpec struct {
	Name        string
	Enabled     bool
	TriggerType string
	Days        *int
	TrainerID   *int64
	Status      *string
	ActionType  string
	URL         *string
}

// Input returns s as a request body, the base a PUT is merged onto.
func (s AutomationSpec) Input() AutomationInput {
	name, enabled, typ, action := s.Name, s.Enabled, s.TriggerType, s.ActionType
	return AutomationInput{
		Name:       &name,
		Enabled:    &enabled,
		Trigger:    &TriggerInput{Type: &typ, Days: clone(s.Days)},
		Conditions: &ConditionsInput{TrainerID: clone(s.TrainerID), Status: clone(s.Status)},
		ActionType: &action,
		Action:     &ActionInput{URL: clone(s.URL)},
	}
}

func clone[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

// AutomationInput is a create or update body before validation.
type AutomationInput struct {
	Name       *string          `json:"name"`
	Enabled    *bool            `json:"enabled"`
	Trigger    *TriggerInput    `json:"trigger"`
	Conditions *ConditionsInput `json:"conditions"`
	ActionType *string          `json:"actionType"`
	Action     *ActionInput     `json:"action"`
}

// TriggerInput is the trigger member of a body.
type TriggerInput struct {
	Type *string `json:"type"`
	Days *int    `json:"days"`
}

// ConditionsInput is the conditions member of a body.
type ConditionsInput struct {
	TrainerID *int64  `json:"trainerId"`
	Status    *string `json:"status"`
}

// ActionInput is the action member of a body.
type ActionInput struct {
	URL *string `json:"url"`
}
