package output

import (
	"strconv"
	"strings"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/cmd/traineectl/internal/iostreams"
)

// TraineeCSVHeader is the header row of trainees as CSV: the JSON field
// names, with the derived status after email and phone.
var TraineeCSVHeader = []string{
	"id", "name", "email", "phoneNumber", "status", "expirationDate", "trainerId", "dateOfBirth",
	"weightUnit", "lastTrained", "enabled", "userId", "username", "companyId", "createdByType",
	"forcePasswordChange", "authorities",
}

func dateOr(d *api.Date, none string) string {
	if d == nil {
		return none
	}
	return d.String()
}

func strOr(s *string, none string) string {
	if s == nil {
		return none
	}
	return *s
}

func idOr(id *int64, none string) string {
	if id == nil {
		return none
	}
	return strconv.FormatInt(*id, 10)
}

// TraineeCSVRow is one trainee as CSV; unset values are empty.
func TraineeCSVRow(t *api.Trainee, today api.Date) []string {
	return []string{
		strconv.FormatInt(t.ID, 10), t.Name, t.Email, strOr(t.PhoneNumber, ""), t.Status(today),
		dateOr(t.ExpirationDate, ""), idOr(t.TrainerID, ""), dateOr(t.DateOfBirth, ""), t.WeightUnit,
		dateOr(t.LastTrained, ""), strconv.FormatBool(t.Enabled), strconv.FormatInt(t.UserID, 10), t.Username,
		strconv.FormatInt(t.CompanyID, 10), t.CreatedByType, strconv.FormatBool(t.ForcePasswordChange),
		strings.Join(t.Authorities, ";"),
	}
}

// TraineeColumns are the table columns of trainees; color paints the status.
func TraineeColumns(color bool) []Column {
	return []Column{
		{Header: "ID", Field: "id", Right: true},
		{Header: "NAME", Field: "name", Flex: true, MinWidth: 10},
		{Header: "EMAIL", Field: "email", Flex: true, MinWidth: 12},
		{Header: "PHONE", Field: "phoneNumber", Flex: true, MinWidth: 6},
		{Header: "STATUS", Field: "status", Paint: func(s string) string { return paintStatus(color, s) }},
		{Header: "EXPIRES", Field: "expirationDate"},
		{Header: "TRAINER", Field: "trainerId", Flex: true, MinWidth: 7},
	}
}

func paintStatus(color bool, s string) string {
	switch s {
	case api.StatusActive:
		return iostreams.Paint(color, iostreams.Green, s)
	case api.StatusExpired:
		return iostreams.Paint(color, iostreams.Yellow, s)
	case api.StatusDeleted:
		return iostreams.Paint(color, iostreams.Red, s)
	}
	return s
}

// TraineeRow is one trainee in the table; unset values are "-". The
// trainer shows by name when trainers knows it, else by id.
func TraineeRow(t *api.Trainee, today api.Date, trainers map[int64]string) []string {
	trainer := idOr(t.TrainerID, "-")
	if t.TrainerID != nil {
		if n, ok := trainers[*t.TrainerID]; ok {
			trainer = n
		}
	}
	return []string{
		strconv.FormatInt(t.ID, 10), t.Name, t.Email, strOr(t.PhoneNumber, "-"), t.Status(today),
		dateOr(t.ExpirationDate, "-"), trainer,
	}
}

// NeedsTable reports whether o prints the table format, the only one
// that shows trainers by name.
func (o Options) NeedsTable() bool { return o.Format == Table && o.JQ == "" && o.Template == "" }

// Trainees prints trainees as o says. single prints the one trainee as
// an object in JSON, YAML, --jq and --template; otherwise they are an
// array.
// trainers names the trainers for the table (nil: by id).
func Trainees(ios *iostreams.IOStreams, o Options, ts []*api.Trainee, today api.Date, single bool, trainers map[int64]string) error {
	if ts == nil {
		ts = []*api.Trainee{}
	}
	var v any = ts
	if single && len(ts) == 1 {
		v = ts[0]
	}
	rows := make([][]string, len(ts))
	csvRows := make([][]string, len(ts))
	for i, t := range ts {
		rows[i] = TraineeRow(t, today, trainers)
		csvRows[i] = TraineeCSVRow(t, today)
	}
	return Print(ios, o, View{
		Value: v, CSVHeader: TraineeCSVHeader, CSVRows: csvRows,
		Columns: TraineeColumns(ios.ColorEnabled()), Rows: rows,
	})
}
