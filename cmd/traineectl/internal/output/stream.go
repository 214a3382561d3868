package output

import (
	"bufio"
	"encoding/csv"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/cmd/internal/textout"
	"github.com/traineed/traineed/cmd/traineectl/internal/iostreams"
)

// Rows is how a list of T prints in every format: JSON and YAML print
// the values; CSV has a header and a row each; the table has columns and
// a row each. Every list command prints through one, a page at a time
// (Stream) or whole (View).
type Rows[T any] struct {
	CSVHeader []string
	CSVRow    func(T) []string
	Columns   []Column
	Row       func(T) []string
}

// View is the View of the whole list ts: an array in JSON and YAML.
func (r Rows[T]) View(ts []T) View {
	if ts == nil {
		ts = []T{}
	}
	rows := make([][]string, len(ts))
	csvRows := make([][]string, len(ts))
	for i, t := range ts {
		rows[i], csvRows[i] = r.Row(t), r.CSVRow(t)
	}
	return View{Value: ts, CSVHeader: r.CSVHeader, CSVRows: csvRows, Columns: r.Columns, Rows: rows}
}

// Stream prints a list a page at a time, as each page arrives, byte for
// byte as Print prints the whole list's View: so a list of any length
// prints in bounded memory. JSON, YAML, CSV and the table off a terminal
// (tab-separated) stream; --jq, --template and the table on a terminal
// need the whole list (the columns fit the widest value), and NewStream
// returns nil for them.
type Stream[T any] struct {
	ios  *iostreams.IOStreams
	o    Options
	rows Rows[T]

	w     *bufio.Writer
	csv   *csv.Writer
	idx   []int // --fields: the columns printed (nil: all)
	cols  []Column
	n     int
	begun bool
}

// TraineeStream prints trainees a page at a time.
type TraineeStream = Stream[*api.Trainee]

// NewTraineeStream returns a stream of trainees for o, or nil when o needs
// the whole list (see Stream). trainers names the trainers for the table's
// trainer column; it is called once, when the first trainee with a
// trainer is printed (nil: by id).
func NewTraineeStream(ios *iostreams.IOStreams, o Options, today api.Date, trainers func() map[int64]string) (*TraineeStream, error) {
	var names map[int64]string
	fetched := false
	return NewStream(ios, o, Rows[*api.Trainee]{
		CSVHeader: TraineeCSVHeader,
		CSVRow:    func(t *api.Trainee) []string { return TraineeCSVRow(t, today) },
		Columns:   TraineeColumns(false),
		Row: func(t *api.Trainee) []string {
			if trainers != nil && !fetched && t.TrainerID != nil {
				names, fetched = trainers(), true
			}
			return TraineeRow(t, today, names)
		},
	})
}

// NewStream returns a stream of rows for o, or nil when o needs the whole
// list (see Stream). A --fields naming no column is refused here, before
// anything is fetched.
func NewStream[T any](ios *iostreams.IOStreams, o Options, rows Rows[T]) (*Stream[T], error) {
	if o.JQ != "" || o.Template != "" {
		return nil, nil
	}
	s := &Stream[T]{ios: ios, o: o, rows: rows, w: bufio.NewWriterSize(ios.Out, 64<<10)}
	switch o.Format {
	case JSON, YAML:
	case CSV:
		if len(o.Fields) > 0 {
			idx, err := fieldIndexes(o.Fields, rows.CSVHeader, nil)
			if err != nil {
				return nil, err
			}
			s.idx = idx
		}
		s.csv = csv.NewWriter(s.w)
	case Table:
		if ios.TableWidth() > 0 {
			return nil, nil
		}
		s.cols = rows.Columns
		if len(o.Fields) > 0 {
			names := make([]string, len(s.cols))
			alt := make([]string, len(s.cols))
			for i, c := range s.cols {
				names[i], alt[i] = c.Header, c.Field
			}
			idx, err := fieldIndexes(o.Fields, names, alt)
			if err != nil {
				return nil, err
			}
			s.idx = idx
			s.cols = pick(s.cols, idx)
		}
	default:
		return nil, nil
	}
	return s, nil
}

// Count is how many rows were written.
func (s *Stream[T]) Count() int { return s.n }

// Write prints one page of rows and flushes it to the output.
func (s *Stream[T]) Write(ts []T) error {
	if err := s.begin(); err != nil {
		return err
	}
	switch s.o.Format {
	case JSON:
		for _, t := range ts {
			b, err := textout.MarshalIndent(t, "  ", "  ")
			if err != nil {
				return err
			}
			sep := ",\n  "
			if s.n == 0 {
				sep = "[\n  "
			}
			s.w.WriteString(sep)
			s.w.Write(b)
			s.n++
		}
	case YAML:
		if len(ts) > 0 {
			// A block sequence of the page: the pages' sequences put
			// together are the whole list's.
			if err := textout.WriteYAML(s.w, ts); err != nil {
				return err
			}
			s.n += len(ts)
		}
	case CSV:
		for _, t := range ts {
			if err := s.csv.Write(textout.EscapeRow(s.pick(s.rows.CSVRow(t)))); err != nil {
				return err
			}
			s.n++
		}
		s.csv.Flush()
		if err := s.csv.Error(); err != nil {
			return err
		}
	case Table:
		rows := make([][]string, len(ts))
		for i, t := range ts {
			rows[i] = s.pick(s.rows.Row(t))
		}
		if err := textout.WriteTSVRows(s.w, len(s.cols), rows); err != nil {
			return err
		}
		s.n += len(ts)
	}
	return s.w.Flush()
}

// begin writes what comes before the first row: the CSV and table
// headers.
func (s *Stream[T]) begin() error {
	if s.begun {
		return nil
	}
	s.begun = true
	switch s.o.Format {
	case CSV:
		return s.csv.Write(s.pick(s.rows.CSVHeader))
	case Table:
		header := make([]string, len(s.cols))
		for i, c := range s.cols {
			header[i] = c.Header
		}
		return textout.WriteTSVRows(s.w, len(header), [][]string{header})
	}
	return nil
}

// Close writes the end of the list (the closing bracket of a JSON array;
// an empty list as [] in JSON and YAML) and flushes.
func (s *Stream[T]) Close() error {
	if err := s.begin(); err != nil {
		return err
	}
	switch s.o.Format {
	case JSON:
		if s.n == 0 {
			s.w.WriteString("[]\n")
		} else {
			s.w.WriteString("\n]\n")
		}
	case YAML:
		if s.n == 0 {
			if err := textout.WriteYAML(s.w, []T{}); err != nil {
				return err
			}
		}
	case CSV:
		s.csv.Flush()
		if err := s.csv.Error(); err != nil {
			return err
		}
	}
	return s.w.Flush()
}

func (s *Stream[T]) pick(row []string) []string {
	if s.idx == nil {
		return row
	}
	return pick(row, s.idx)
}
