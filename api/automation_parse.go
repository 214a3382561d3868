package api

// Reading an automation's body (ParseAutomation): POST and PUT, merged
// onto the stored automation, checked member by member.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// ParseAutomation reads a POST body (base nil) or a PUT body merged onto
// the stored automation (base its Input): members absent from body keep
// base's value, null clears; a new actionType other than WEBHOOK without
// an action drops the stored URL, and a new trigger type that takes no
// days without days drops the stored days. Problems are a *ValidationError: 1000 bad
// JSON, 1001 missing, 1004 unknown value, 1007 name length, 1011 days out
// of range, 1012 a bad URL or a member the trigger or action does not take,
// 1013 a reserved action type, 1016 a text member the body sends holding a
// character text may not hold (a stored name or URL is not checked again).
// A conditions.trainerId is checked by the caller (1010).
func ParseAutomation(body []byte, base *AutomationInput) (AutomationSpec, error) {
	in, err := decodeAutomation(body, base)
	if err != nil {
		return AutomationSpec{}, err
	}
	v := &ValidationError{}
	sent, bad := checkAutomationTexts(v, body)
	s := AutomationSpec{Enabled: true}
	switch {
	case in.Name == nil:
		v.Add(CodeRequired, "name", "name is required")
	case bad["name"]:
	default:
		s.Name = strings.TrimSpace(*in.Name)
		if n := utf8.RuneCountInString(s.Name); n == 0 || n > MaxNameLength {
			v.Add(CodeTextLength, "name", "name must be 1 to %d characters", MaxNameLength)
		}
	}
	if in.Enabled != nil {
		s.Enabled = *in.Enabled
	}
	parseTrigger(v, in.Trigger, bad, &s)
	parseConditions(v, in.Conditions, bad, &s)
	parseAction(v, in, sent, bad, &s)
	return s, v.Err()
}

// decodeAutomation reads body onto a copy of base (nil for a POST): the
// members the body sends replace base's, null clears. A PUT that changes
// the action type away from WEBHOOK without naming an action drops the
// stored URL, and one that changes the trigger type to one that takes no
// days, without days, drops the stored days. base is left as it was.
func decodeAutomation(body []byte, base *AutomationInput) (AutomationInput, error) {
	if _, err := object(body); err != nil {
		return AutomationInput{}, err
	}
	in := AutomationInput{}
	if base != nil {
		in = base.clone()
	}
	var probe struct {
		ActionType json.RawMessage `json:"actionType"`
		Action     json.RawMessage `json:"action"`
		Trigger    struct {
			Type json.RawMessage `json:"type"`
			Days json.RawMessage `json:"days"`
		} `json:"trigger"`
	}
	_ = json.Unmarshal(body, &probe)
	if err := json.NewDecoder(bytes.NewReader(body)).Decode(&in); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return in, Invalid(CodeBadJSON, te.Field, "%s has the wrong type", te.Field)
		}
		return in, Invalid(CodeBadJSON, "", "body must be one JSON object")
	}
	if base != nil && probe.ActionType != nil && probe.Action == nil && in.ActionType != nil && *in.ActionType != ActionWebhook && in.Action != nil {
		in.Action.URL = nil
	}
	if base != nil && probe.Trigger.Type != nil && probe.Trigger.Days == nil && in.Trigger != nil && in.Trigger.Type != nil &&
		*in.Trigger.Type != TriggerExpirationApproaching && *in.Trigger.Type != TriggerInactive {
		in.Trigger.Days = nil
	}
	return in, nil
}

// clone copies in deeply (a JSON round trip: every pointer, to a member or
// to a value, is new), so that decoding a body onto the copy, which writes
// through the pointers it finds, leaves in alone.
func (in AutomationInput) clone() AutomationInput {
	var out AutomationInput
	b, _ := json.Marshal(in) // pointers to strings, ints and bools always marshal
	_ = json.Unmarshal(b, &out)
	return out
}

// parseTrigger checks the trigger: a known type, with days in range when
// it takes them (1004, 1001, 1011) and none when it does not (1012).
func parseTrigger(v *ValidationError, t *TriggerInput, bad map[string]bool, s *AutomationSpec) {
	if t == nil || t.Type == nil {
		v.Add(CodeRequired, "trigger.type", "trigger.type is required")
		return
	}
	s.TriggerType, s.Days = *t.Type, t.Days
	switch {
	case bad["trigger.type"]:
	case s.TriggerType == TriggerExpirationApproaching || s.TriggerType == TriggerInactive:
		limit := MaxApproachingDays
		if s.TriggerType == TriggerInactive {
			limit = MaxInactiveDays
		}
		if s.Days == nil {
			v.Add(CodeRequired, "trigger.days", "trigger.days is required for %s", s.TriggerType)
		} else if *s.Days < 1 || *s.Days > limit {
			v.Add(CodeInvalidRange, "trigger.days", "trigger.days must be 1 to %d for %s", limit, s.TriggerType)
		}
	case !slices.Contains(TriggerTypes, s.TriggerType):
		v.Add(CodeInvalidEnum, "trigger.type", "trigger.type must be one of %s", strings.Join(TriggerTypes, ", "))
	case s.Days != nil:
		v.Add(CodeInvalidParameter, "trigger.days", "%s takes no trigger.days", s.TriggerType)
	}
}

// parseConditions checks the conditions: a positive trainer id (whether
// it is the company's is the caller's check, 1010) and a known status.
func parseConditions(v *ValidationError, c *ConditionsInput, bad map[string]bool, s *AutomationSpec) {
	if c == nil {
		return
	}
	if c.TrainerID != nil {
		if *c.TrainerID <= 0 {
			v.Add(CodeUnknownTrainer, "conditions.trainerId", "trainer %d is not a trainer of this company", *c.TrainerID)
		}
		s.TrainerID = c.TrainerID
	}
	if c.Status != nil {
		if !bad["conditions.status"] && !slices.Contains(ConditionStatuses, *c.Status) {
			v.Add(CodeInvalidEnum, "conditions.status", "conditions.status must be active, expired or live")
		}
		s.Status = c.Status
	}
}

// parseAction checks the action: WEBHOOK with an http(s) URL (a stored one
// is not checked again), DISABLE_TRAINEE without one, a reserved type
// (1013), anything else 1004.
func parseAction(v *ValidationError, in AutomationInput, sent, bad map[string]bool, s *AutomationSpec) {
	if in.ActionType == nil {
		v.Add(CodeRequired, "actionType", "actionType is required")
		return
	}
	s.ActionType = *in.ActionType
	var u *string
	if in.Action != nil {
		u = in.Action.URL
	}
	switch {
	case bad["actionType"]:
	case slices.Contains(ReservedActionTypes, s.ActionType):
		v.Add(CodeReserved, "actionType", "actionType %s is reserved for a later release", s.ActionType)
	case s.ActionType == ActionWebhook:
		switch {
		case u == nil:
			v.Add(CodeRequired, "action.url", "action.url is required for WEBHOOK")
		case bad["action.url"], !sent["action.url"]: // a stored URL was checked when it was stored
		default:
			v.merge(ValidateURL("action.url", *u))
		}
		s.URL = u
	case s.ActionType == ActionDisableTrainee:
		if u != nil {
			v.Add(CodeInvalidParameter, "action.url", "DISABLE_TRAINEE takes no action.url")
		}
	default:
		v.Add(CodeInvalidEnum, "actionType", "actionType must be WEBHOOK or DISABLE_TRAINEE (EMAIL, SMS and PUSH are reserved)")
	}
}

// checkAutomationTexts records a 1016 for each text member of an
// automation body (name, trigger.type, conditions.status, actionType,
// action.url) that holds a character text may not hold. Only the members
// the body sends are checked: text stored before a rule is left as it is.
// sent names the text members the body has, bad those refused.
func checkAutomationTexts(v *ValidationError, body []byte) (sent, bad map[string]bool) {
	var in AutomationInput
	_ = json.Unmarshal(body, &in) // its type errors are the caller's
	sent, bad = map[string]bool{}, map[string]bool{}
	check := func(field string, s *string) {
		if s != nil {
			sent[field] = true
			bad[field] = !checkText(v, field, *s)
		}
	}
	check("name", in.Name)
	if in.Trigger != nil {
		check("trigger.type", in.Trigger.Type)
	}
	if in.Conditions != nil {
		check("conditions.status", in.Conditions.Status)
	}
	check("actionType", in.ActionType)
	if in.Action != nil {
		check("action.url", in.Action.URL)
	}
	return sent, bad
}

// CheckAutomationText refuses, as the server does (1016), an automation
// body whose text holds a character text may not hold: what traineectl
// checks before sending one.
func CheckAutomationText(body []byte) error {
	v := &ValidationError{}
	checkAutomationTexts(v, body)
	return v.Err()
}

// NewPageInfo describes page number of size over total elements.
func NewPageInfo(number, size int, total int64) PageInfo {
	pages := int((total + int64(size) - 1) / int64(size))
	return PageInfo{Size: size, Number: number, TotalElements: total, TotalPages: pages, TotalExact: true}
}

// AutomationStore is what the automations endpoints need from storage.
// Every method takes the caller's company id; an automation of another
// company is ErrNotFound.
type AutomationStore interface {
	// CreateAutomation stores a new automation; secret signs its WEBHOOK
	// deliveries.
	// A company that has max automations already (max > 0) gets a 400
	// with CodeLimitReached.
	CreateAutomation(ctx context.Context, companyID int64, s AutomationSpec, secret string, max int) (*Automation, error)
	// Automation returns one automation with its spec.
	Automation(ctx context.Context, companyID, id int64) (*Automation, AutomationSpec, error)
	// Automations returns one page of the company's automations by id,
	// and their count.
	Automations(ctx context.Context, companyID int64, q ListQuery) (ListPage[*Automation], error)
	// UpdateAutomation replaces an automation's spec; one that becomes a
	// WEBHOOK is signed with secret, which the result then carries.
	UpdateAutomation(ctx context.Context, companyID, id int64, s AutomationSpec, secret string) (*Automation, error)
	// DeleteAutomation deletes an automation and returns it as it was; its
	// runs stay readable for RunRetention.
	DeleteAutomation(ctx context.Context, companyID, id int64) (*Automation, error)
	// AutomationRuns returns one page of runs, newest first (keyset: the
	// run id), and their count: of an automation, or of one deleted within
	// RunRetention.
	AutomationRuns(ctx context.Context, companyID, id int64, q ListQuery) (ListPage[*AutomationRun], error)
	// AutomationMatches returns one page of the trainees the automation
	// would fire for now (today being the company's day), by id, and their
	// count.
	AutomationMatches(ctx context.Context, companyID, id int64, today Date, q ListQuery) (ListPage[*Trainee], error)
}

// RunRetention is how long the runs of a deleted automation stay readable.
const RunRetention = 30 * 24 * time.Hour
