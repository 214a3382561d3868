package bulkimport

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The results file is in the input's row order once the run closes it,
// whatever order the rows finished in: a row's lines keep their order (a
// generated password's pending line before its outcome), the lines of an
// earlier run of the same file stay before this run's, and the file stays
// readable by this user only.
func TestResultsFileInRowOrder(t *testing.T) {
	path := filepath.Join(t.TempDir(), "results.csv")
	r, err := OpenResults(path)
	if err != nil {
		t.Fatal(err)
	}
	id := int64(7)
	for _, rec := range []Record{{Row: 4, Status: StatusFailed}, {Row: 2, Status: StatusCreated, TraineeID: &id}} {
		if err := r.Write(rec); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	// A second run: row 3 finishes first, row 2 after its pending line.
	if r, err = OpenResults(path); err != nil {
		t.Fatal(err)
	}
	if err := r.Pending(Record{Row: 3, RequestID: "rid-3", Password: "pw"}); err != nil {
		t.Fatal(err)
	}
	for _, rec := range []Record{{Row: 5, Status: StatusCreated}, {Row: 3, RequestID: "rid-3", Status: StatusCreated}, {Row: 2, Status: StatusAlreadyDone}} {
		if err := r.Write(rec); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, rec := range recs[1:] {
		got = append(got, rec[0]+":"+rec[4])
	}
	want := "2:created 2:already-done 3:pending 3:created 4:failed 5:created"
	if strings.Join(got, " ") != want || strings.Join(recs[0], ",") != strings.Join(ResultsHeader, ",") {
		t.Errorf("results file rows %q, want %q (header %v)", strings.Join(got, " "), want, recs[0])
	}
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v %v", st.Mode(), err)
	}
	if m, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".results.csv.sort-*")); len(m) != 0 {
		t.Errorf("left behind: %v", m)
	}
	if r, err := OpenResults(path); err != nil {
		t.Errorf("the sorted file does not open again: %v", err)
	} else if pw, ok := r.Password("rid-3"); !ok || pw != "pw" {
		t.Errorf("the sorted file lost the generated password: %q %v", pw, ok)
	} else {
		r.Close()
	}
}
