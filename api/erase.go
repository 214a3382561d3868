package api

import (
	"context"
	"net/url"
	"time"
)

// Erasure and export of one trainee (issue 29): GDPR Article 17 (erasure)
// and Articles 15 and 20 (access, portability).

// CodeEraseNotConfirmed: an erase's confirm is not the trainee's e-mail
// address (status 400, field "confirm"); nothing is erased.
const CodeEraseNotConfirmed = 1028

// EventTraineeErased is sent when a trainee is erased: its payload holds
// the trainee's id only. The payloads of the trainee's earlier events are
// redacted to the same form (see RedactedEvent).
const EventTraineeErased = "trainee.erased"

// EraseRequest is the body of POST /trainees/{id}/erase: the trainee's
// e-mail address, typed again, as the confirmation of an irreversible act.
type EraseRequest struct {
	Confirm string `json:"confirm"`
}

// ParseErase reads an erase body: confirm is required, a string.
func ParseErase(body []byte) (*EraseRequest, error) {
	m, err := object(body)
	if err != nil {
		return nil, err
	}
	f := &fields{m: m, v: &ValidationError{}, skip: map[string]bool{}}
	r := &EraseRequest{}
	if raw, ok := f.present("confirm", true, false); ok {
		f.str("confirm", raw, &r.Confirm)
	}
	if err := f.v.Err(); err != nil {
		return nil, err
	}
	return r, nil
}

// ConfirmsErase reports whether confirm is the e-mail address email once
// both are normalised (trimmed, lower case).
func ConfirmsErase(confirm, email string) bool {
	return confirm != "" && NormalizeEmail(confirm) == NormalizeEmail(email)
}

// ErasedTrainee is the tombstone an erased trainee leaves: nothing about
// the person, only the ids and the times.
type ErasedTrainee struct {
	ID        int64     `json:"id"`
	CompanyID int64     `json:"companyId"`
	UserID    int64     `json:"userId"`
	CreatedAt time.Time `json:"createdAt"`
	ErasedAt  time.Time `json:"erasedAt"`
}

// ErasedEnvelope is the body of a successful erase, the first time and
// every time after.
type ErasedEnvelope struct {
	Timestamp int64          `json:"timestamp"`
	Erased    *ErasedTrainee `json:"erased"`
}

// RedactedTrainee is what an event's data.trainee becomes once the
// trainee is erased, and what trainee.erased carries: the id alone.
type RedactedTrainee struct {
	ID int64 `json:"id"`
}

// RedactedEvent is the payload of trainee.erased, and what the payload of
// each earlier event of an erased trainee is rewritten to (type,
// timestamp and changedFields kept; data.trainee the id alone).
type RedactedEvent struct {
	Type      string       `json:"type"`
	Timestamp int64        `json:"timestamp"`
	Data      RedactedData `json:"data"`
}

// RedactedData is the "data" member of a RedactedEvent.
type RedactedData struct {
	Trainee       RedactedTrainee `json:"trainee"`
	ChangedFields []string        `json:"changedFields"`
}

// TraineeExport is the body of GET /trainees/{id}/export: everything the
// service holds about one trainee, in one document. Tracked data is as
// stored (weights in kilograms, values unrounded), oldest first; From and
// To, when set, bound the tracked data's days.
type TraineeExport struct {
	Timestamp    int64             `json:"timestamp"`
	Trainee      *Trainee          `json:"trainee"`
	Trainer      *TrainerRef       `json:"trainer"`
	From         *Date             `json:"from"`
	To           *Date             `json:"to"`
	Weight       []ExportWeight    `json:"weight"`
	Measurements []Measurement     `json:"measurements"`
	Nutrition    []ExportNutrition `json:"nutrition"`
	Steps        []ExportSteps     `json:"steps"`
	Workouts     []Date            `json:"workouts"`
}

// ExportWeight is one day's weight as stored, in kilograms.
type ExportWeight struct {
	Date     Date    `json:"date"`
	WeightKG float64 `json:"weightKg"`
}

// ExportNutrition is one logged nutrition item with its day and meal.
type ExportNutrition struct {
	Date Date   `json:"date"`
	Meal string `json:"meal"`
	NutritionItem
}

// ExportSteps is one day's step count.
type ExportSteps struct {
	Date  Date  `json:"date"`
	Steps int64 `json:"steps"`
}

// ExportRange bounds the tracked data of an export: nil bounds are open.
type ExportRange struct {
	From, To *Date
}

// ParseExportRange reads an export's optional from and to (dd-MM-yyyy);
// from after to is a 1011. Unlike the tracked-data reads there is no
// one-year limit: an export is everything.
func ParseExportRange(q url.Values) (ExportRange, error) {
	v := &ValidationError{}
	var r ExportRange
	for _, p := range []struct {
		name string
		dst  **Date
	}{{"from", &r.From}, {"to", &r.To}} {
		if !q.Has(p.name) {
			continue
		}
		s := q.Get(p.name)
		if c, bad := ControlChar(s); bad {
			v.Add(CodeControlChar, p.name, "%s must not contain %s", p.name, controlName(c))
			continue
		}
		d, err := ParseDate(s)
		if err != nil {
			v.Add(CodeInvalidDate, p.name, "%s must be a real date written dd-MM-yyyy", p.name)
			continue
		}
		*p.dst = &d
	}
	if err := v.Err(); err != nil {
		return r, err
	}
	if r.From != nil && r.To != nil && r.From.After(*r.To) {
		return r, Invalid(CodeInvalidRange, "from", "from must not be after to")
	}
	return r, nil
}

// LifecycleStore is what the handler needs for erasure and export.
// Both take the caller's company id; a trainee id that is not a trainee
// of that company is ErrNotFound (an erased one too, for ExportTrainee).
type LifecycleStore interface {
	// EraseTrainee erases the trainee when confirm is its e-mail address
	// (else a *ValidationError 1028, nothing changed): see the erase
	// route in openapi.yaml for what goes and what stays. An erased
	// trainee answers its tombstone again, whatever confirm holds.
	EraseTrainee(ctx context.Context, companyID, id int64, confirm string) (*ErasedTrainee, error)
	// ExportTrainee returns everything held about the trainee (all but
	// Timestamp), tracked data within r.
	ExportTrainee(ctx context.Context, companyID, id int64, r ExportRange) (*TraineeExport, error)
}
