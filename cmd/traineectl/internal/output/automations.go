package output

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/traineed/traineed/api"
)

// AutomationCSVHeader is the header of automations in CSV.
var AutomationCSVHeader = []string{"id", "name", "enabled", "triggerType", "triggerDays", "trainerId", "status",
	"actionType", "url", "runCount", "lastRunAt", "createdAt", "updatedAt"}

// InstantOr is a CSV cell of t (none when it is nil).
func InstantOr(t *time.Time, none string) string {
	if t == nil {
		return none
	}
	return Instant(*t)
}

// StampOr is a table cell of t (none when it is nil).
func StampOr(t *time.Time, none string) string {
	if t == nil {
		return none
	}
	return Stamp(*t)
}

func intOr(n *int, none string) string {
	if n == nil {
		return none
	}
	return strconv.Itoa(*n)
}

// AutomationCSVRow is one automation in CSV: empty cells for nulls.
func AutomationCSVRow(a *api.Automation) []string {
	return []string{strconv.FormatInt(a.ID, 10), a.Name, strconv.FormatBool(a.Enabled), a.Trigger.Type, intOr(a.Trigger.Days, ""),
		IDOr(a.Conditions.TrainerID, ""), StrOr(a.Conditions.Status, ""), a.ActionType, StrOr(a.Action.URL, ""),
		strconv.FormatInt(a.RunCount, 10), InstantOr(a.LastRunAt, ""), InstantOr(&a.CreatedAt, ""), InstantOr(&a.UpdatedAt, "")}
}

// AutomationColumns are the table columns of automations.
func AutomationColumns() []Column {
	return []Column{{Header: "ID", Right: true}, {Header: "NAME", Flex: true}, {Header: "STATE"}, {Header: "TRIGGER"},
		{Header: "CONDITIONS", Flex: true}, {Header: "ACTION", Flex: true}, {Header: "RUNS", Right: true}, {Header: "LAST RUN"}}
}

// TriggerText is a trigger as the table shows it: "INACTIVE 14d".
func TriggerText(tr api.AutomationTrigger) string {
	if tr.Days != nil {
		return fmt.Sprintf("%s %dd", tr.Type, *tr.Days)
	}
	return tr.Type
}

// ConditionsText is the conditions as the table shows them.
func ConditionsText(c api.AutomationConditions) string { return conditionsText(c, nil) }

// conditionsText is ConditionsText with the trainer named when names
// (read only when a condition has a trainer) knows it: "trainer Maya
// Brooks (#7)".
func conditionsText(c api.AutomationConditions, names func() map[int64]string) string {
	var parts []string
	if c.TrainerID != nil {
		t := "trainer " + strconv.FormatInt(*c.TrainerID, 10)
		if names != nil {
			if n := names()[*c.TrainerID]; n != "" {
				t = "trainer " + api.EscapeText(n) + " (#" + strconv.FormatInt(*c.TrainerID, 10) + ")"
			}
		}
		parts = append(parts, t)
	}
	if c.Status != nil {
		parts = append(parts, *c.Status)
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, ", ")
}

// ActionText is the action as the table shows it.
func ActionText(a *api.Automation) string {
	if a.Action.URL != nil {
		return a.ActionType + " " + *a.Action.URL
	}
	return a.ActionType
}

// AutomationRow is one automation in the table.
func AutomationRow(a *api.Automation) []string { return automationRow(a, nil) }

func automationRow(a *api.Automation, names func() map[int64]string) []string {
	state := "enabled"
	if !a.Enabled {
		state = "disabled"
	}
	return []string{strconv.FormatInt(a.ID, 10), a.Name, state, TriggerText(a.Trigger), conditionsText(a.Conditions, names),
		ActionText(a), strconv.FormatInt(a.RunCount, 10), StampOr(a.LastRunAt, "never")}
}

// AutomationRowsNamed is AutomationRows whose table names the trainer of
// a condition (names is asked only when one has a trainer).
func AutomationRowsNamed(names func() map[int64]string) Rows[*api.Automation] {
	r := AutomationRows
	r.Row = func(a *api.Automation) []string { return automationRow(a, names) }
	return r
}

// RunCSVHeader is the header of runs in CSV.
var RunCSVHeader = []string{"id", "automationId", "traineeId", "firedAt", "occurrence", "outcome", "error", "traineeName"}

// RunCSVRow is one run in CSV.
func RunCSVRow(r *api.AutomationRun) []string {
	return []string{strconv.FormatInt(r.ID, 10), strconv.FormatInt(r.AutomationID, 10), strconv.FormatInt(r.TraineeID, 10),
		InstantOr(&r.FiredAt, ""), r.Occurrence, r.Outcome, StrOr(r.Error, ""), StrOr(r.TraineeName, "")}
}

// RunColumns are the table columns of runs.
func RunColumns() []Column {
	return []Column{{Header: "ID", Right: true}, {Header: "TRAINEE", Flex: true, MinWidth: 10}, {Header: "FIRED AT"},
		{Header: "OCCURRENCE", Flex: true}, {Header: "OUTCOME"}, {Header: "ERROR", Flex: true}}
}

// RunRow is one run in the table.
func RunRow(r *api.AutomationRun) []string {
	who := "#" + strconv.FormatInt(r.TraineeID, 10)
	if r.TraineeName != nil && *r.TraineeName != "" {
		who = *r.TraineeName + " " + who
	}
	return []string{strconv.FormatInt(r.ID, 10), who, StampOr(&r.FiredAt, ""), OccurrenceText(r.Occurrence),
		r.Outcome, StrOr(r.Error, "-")}
}

// OccurrenceText is a run's occurrence as tables show it: the calendar day
// of a time trigger's occurrence ("expired:20261129", as the API keeps it)
// written dd-MM-yyyy as every calendar date a person reads
// ("expired:29-11-2026"); anything else (event:<id>, inactive:never) as it
// is. JSON, YAML and CSV keep the API's value.
func OccurrenceText(occ string) string {
	kind, day, ok := strings.Cut(occ, ":")
	if !ok || len(day) != 8 || kind == "event" {
		return occ
	}
	n, err := strconv.Atoi(day)
	if err != nil || n <= 0 {
		return occ
	}
	d := api.DateFromInt(n)
	if api.DateOf(d.Time()) != d { // not a real calendar day
		return occ
	}
	return kind + ":" + d.Time().Format(api.DateLayout)
}

// AutomationRows is how a list of automations prints.
var AutomationRows = Rows[*api.Automation]{CSVHeader: AutomationCSVHeader, CSVRow: AutomationCSVRow, Columns: AutomationColumns(), Row: AutomationRow}

// RunRows is how a list of runs prints.
var RunRows = Rows[*api.AutomationRun]{CSVHeader: RunCSVHeader, CSVRow: RunCSVRow, Columns: RunColumns(), Row: RunRow}
