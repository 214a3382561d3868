package output

import (
	"slices"
	"strconv"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/cmd/traineectl/internal/iostreams"
)

// csvFirst are the columns a trainee's CSV starts with: the table's, then
// what people sort and filter by; "status" is derived (api.Trainee.Status).
var csvFirst = []string{
	"id", "name", "email", "phoneNumber", "status", "expirationDate", "trainerId", "dateOfBirth",
	"weightUnit", "lastTrained", "enabled",
}

// TraineeCSVHeader is the header row of trainees as CSV: the JSON field
// names of every field of api.Trainee, csvFirst first, the others in the
// order of api.Trainee (a new field comes last).
var TraineeCSVHeader = func() []string {
	out := slices.Clone(csvFirst)
	for _, name := range api.TraineeFieldNames {
		if !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	return out
}()

// StrOr is the text of s, none when it is nil.
func StrOr(s *string, none string) string {
	if s == nil {
		return none
	}
	return *s
}

// IDOr is the text of an id, none when it is nil.
func IDOr(id *int64, none string) string {
	if id == nil {
		return none
	}
	return strconv.FormatInt(*id, 10)
}

// traineeCell is the text of a trainee's column (a JSON field name, or
// status), none for a null.
func traineeCell(t *api.Trainee, field string, today api.Date, none string) string {
	if field == "status" {
		return t.Status(today)
	}
	v := api.TraineeValue(t, field)
	if v == nil {
		return none
	}
	return api.FormatText(v)
}

// TraineeCSVRow is one trainee as CSV; unset values are empty.
func TraineeCSVRow(t *api.Trainee, today api.Date) []string {
	out := make([]string, len(TraineeCSVHeader))
	for i, field := range TraineeCSVHeader {
		out[i] = traineeCell(t, field, today, "")
	}
	return out
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

// TraineeRow is one trainee in the table: the field of each of
// TraineeColumns; unset values are "-". The trainer shows by name when
// trainers knows it, else by id.
func TraineeRow(t *api.Trainee, today api.Date, trainers map[int64]string) []string {
	cols := TraineeColumns(false)
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = traineeCell(t, c.Field, today, "-")
	}
	if t.TrainerID != nil {
		if n, ok := trainers[*t.TrainerID]; ok {
			out[slices.IndexFunc(cols, func(c Column) bool { return c.Field == "trainerId" })] = n
		}
	}
	return out
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
