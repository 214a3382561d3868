package store

import (
	"slices"
	"testing"
)

// A notification's payload says what the marks say, names at most
// maxWakeCompanies companies (beyond, every company), and a payload that is
// not one is refused (the listener then wakes everything).
func TestWakePayload(t *testing.T) {
	var m wakeMarks
	m.add(false, []int64{7, 3, 7})
	m.add(true, nil)
	inst, got, ok := parseWake(m.payload("abc"))
	if !ok || inst != "abc" || !got.deliveries || got.all || !slices.Equal(got.companies, []int64{7, 3}) {
		t.Fatalf("%q read back as %q %+v %v", m.payload("abc"), inst, got, ok)
	}
	if _, got, ok := parseWake((&wakeMarks{}).payload("x")); !ok || !got.empty() {
		t.Fatalf("empty marks read back as %+v %v", got, ok)
	}
	var many wakeMarks
	for c := int64(1); c <= maxWakeCompanies+1; c++ {
		many.add(false, []int64{c})
	}
	if p := many.payload("x"); p != "x - *" {
		t.Fatalf("%d companies: payload %q", maxWakeCompanies+1, p)
	}
	for _, bad := range []string{"", "x", "x d", "x q 1", "x d 1,,2", "x d 0", "x d -3", "x d 1 2"} {
		if _, _, ok := parseWake(bad); ok {
			t.Errorf("parseWake(%q) accepted", bad)
		}
	}
}
