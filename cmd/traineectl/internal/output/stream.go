package output

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"slices"
	"strings"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/cmd/traineectl/internal/iostreams"
)

// TraineeStream prints a list of trainees a page at a time, as each page
// arrives, byte for byte as Trainees prints the whole list: so a list of
// any length prints in bounded memory. JSON, YAML, CSV and the table off
// a terminal (tab-separated) stream; --jq, --template and the table on a
// terminal need the whole list (the columns fit the widest value), and
// NewTraineeStream returns nil for them.
type TraineeStream struct {
	ios      *iostreams.IOStreams
	o        Options
	today    api.Date
	trainers func() map[int64]string
	names    map[int64]string
	fetched  bool

	w     *bufio.Writer
	csv   *csv.Writer
	idx   []int // --fields: the columns printed (nil: all)
	cols  []Column
	n     int
	begun bool
}

// NewTraineeStream returns a stream for o, or nil when o needs the whole
// list (see TraineeStream). trainers names the trainers for the table's
// trainer column; it is called once, when the first trainee with a
// trainer is printed (nil: by id). A --fields naming no column is refused
// here, before anything is fetched.
func NewTraineeStream(ios *iostreams.IOStreams, o Options, today api.Date, trainers func() map[int64]string) (*TraineeStream, error) {
	if o.JQ != "" || o.Template != "" {
		return nil, nil
	}
	s := &TraineeStream{ios: ios, o: o, today: today, trainers: trainers, w: bufio.NewWriterSize(ios.Out, 64<<10)}
	switch o.Format {
	case JSON, YAML:
	case CSV:
		if len(o.Fields) > 0 {
			idx, err := fieldIndexes(o.Fields, TraineeCSVHeader, nil)
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
		s.cols = TraineeColumns(false)
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

// Count is how many trainees were written.
func (s *TraineeStream) Count() int { return s.n }

// Write prints one page of trainees and flushes it to the output.
func (s *TraineeStream) Write(ts []*api.Trainee) error {
	if err := s.begin(); err != nil {
		return err
	}
	switch s.o.Format {
	case JSON:
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		enc.SetIndent("  ", "  ")
		for _, t := range ts {
			b.Reset()
			if err := enc.Encode(t); err != nil {
				return err
			}
			sep := ",\n  "
			if s.n == 0 {
				sep = "[\n  "
			}
			s.w.WriteString(sep)
			s.w.WriteString(api.EscapeFramed(strings.TrimSuffix(b.String(), "\n")))
			s.n++
		}
	case YAML:
		if len(ts) > 0 {
			// A block sequence of the page: the pages' sequences put
			// together are the whole list's.
			if err := WriteYAML(s.w, ts); err != nil {
				return err
			}
			s.n += len(ts)
		}
	case CSV:
		for _, t := range ts {
			if err := s.csv.Write(escapeRows([][]string{s.pick(TraineeCSVRow(t, s.today))})[0]); err != nil {
				return err
			}
			s.n++
		}
		s.csv.Flush()
		if err := s.csv.Error(); err != nil {
			return err
		}
	case Table:
		if s.trainers != nil && !s.fetched && slices.ContainsFunc(ts, func(t *api.Trainee) bool { return t.TrainerID != nil }) {
			s.names, s.fetched = s.trainers(), true
		}
		rows := make([][]string, len(ts))
		for i, t := range ts {
			rows[i] = s.pick(TraineeRow(t, s.today, s.names))
		}
		if err := writeTSVRows(s.w, len(s.cols), rows); err != nil {
			return err
		}
		s.n += len(ts)
	}
	return s.w.Flush()
}

// begin writes what comes before the first trainee: the CSV and table
// headers.
func (s *TraineeStream) begin() error {
	if s.begun {
		return nil
	}
	s.begun = true
	switch s.o.Format {
	case CSV:
		return s.csv.Write(s.pick(TraineeCSVHeader))
	case Table:
		header := make([]string, len(s.cols))
		for i, c := range s.cols {
			header[i] = c.Header
		}
		return writeTSVRows(s.w, len(header), [][]string{header})
	}
	return nil
}

// Close writes the end of the list (the closing bracket of a JSON array;
// an empty list as [] in JSON and YAML) and flushes.
func (s *TraineeStream) Close() error {
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
			if err := WriteYAML(s.w, []*api.Trainee{}); err != nil {
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

func (s *TraineeStream) pick(row []string) []string {
	if s.idx == nil {
		return row
	}
	return pick(row, s.idx)
}
