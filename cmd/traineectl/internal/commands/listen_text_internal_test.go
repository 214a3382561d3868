package commands

import (
	"strings"
	"testing"
	"time"
)

// An events listen line names the trainee the event is about, by id and
// name; an erased trainee's by id; an event about no trainee by nothing.
func TestListenLineNamesTheTrainee(t *testing.T) {
	at := time.Date(2026, 11, 28, 9, 30, 0, 0, time.UTC)
	for payload, want := range map[string]string{
		`{"type":"trainee.created","timestamp":1,"data":{"trainee":{"id":41,"name":"Ada Park"},"changedFields":[]}}`: "trainee 41 Ada Park",
		`{"type":"trainee.erased","timestamp":1,"data":{"trainee":{"id":42},"changedFields":[]}}`:                    "trainee 42",
		`{"type":"company.updated","timestamp":1,"data":{"company":{"id":3}}}`:                                       "",
	} {
		got := listenText(listenLine{ID: "evt_1", Type: "x", CreatedAt: at, Payload: []byte(payload)})
		if want == "" && strings.Contains(got, "trainee") || want != "" && !strings.HasSuffix(got, "  "+want) {
			t.Errorf("%s: %q, want it to end with %q", payload, got, want)
		}
	}
}
