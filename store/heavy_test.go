package store_test

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// heavySequential are the tests that load thousands of trainees and check
// them from one goroutine: the race detector has nothing to watch in
// them and makes them 3 to 10 times slower (TestSearchMatchesReference
// 43 s without it, 115 s with it: most of the store's CI time). Under it
// they skip; .ci/run runs them without it, by this list
// (TestHeavyRunWithoutRace checks that it does).
var heavySequential = []string{
	"TestSearchMatchesReference",
	"TestSearchCursorDeep",
	"TestQueryPlans",
	"TestSearchPrefilter",
	"TestSearchCursorWalk",
}

// skipUnderRace skips a test of heavySequential under the race detector.
func skipUnderRace(t *testing.T) {
	t.Helper()
	if !slices.Contains(heavySequential, t.Name()) {
		t.Fatalf("%s calls skipUnderRace but is not in heavySequential, which .ci/run runs without the race detector", t.Name())
	}
	if raceEnabled {
		t.Skip("sequential and data-heavy: .ci/run runs it without the race detector")
	}
}

// .ci/run runs every test of heavySequential without the race detector,
// with the exact -run pattern this list makes.
func TestHeavyRunWithoutRace(t *testing.T) {
	ci, err := os.ReadFile("../.ci/run")
	if err != nil {
		t.Fatal(err)
	}
	want := "go test -count=1 -run '^(" + strings.Join(heavySequential, "|") + ")$' ./store/"
	if !strings.Contains(string(ci), want) {
		t.Errorf(".ci/run does not run the heavy tests without the race detector: want a line with\n%s", want)
	}
	// Each of them skips under the race detector, and nothing else does.
	callers := regexp.MustCompile(`(?m)^func (Test\w+)\(t \*testing\.T\) \{\n(?:\t//.*\n)*\tskipUnderRace\(t\)`)
	files, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	var found []string
	for _, f := range files {
		if !strings.HasSuffix(f.Name(), "_test.go") {
			continue
		}
		src, err := os.ReadFile(f.Name())
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range callers.FindAllSubmatch(src, -1) {
			found = append(found, string(m[1]))
		}
	}
	slices.Sort(found)
	listed := slices.Sorted(slices.Values(heavySequential))
	if !slices.Equal(found, listed) {
		t.Errorf("tests that start with skipUnderRace(t): %v; heavySequential: %v", found, listed)
	}
}
