// Package apitest is a test fixture for the API's clients (traineectl, the
// TUI): a server on 127.0.0.1 whose every text is hostile to the terminal
// that shows it, and the check that an output holds nothing a terminal
// would act on.
package apitest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/traineed/traineed/api"
)

// Hostile commands, reorders or breaks the lines of a terminal that shows
// it raw: an OSC that sets the window title ended by BEL, ESC [2J (clear
// the screen), the 8-bit CSI U+009B, DEL, a right-to-left override, an
// isolate, the line and paragraph separators U+2028 and U+2029, a vertical
// tab and a backspace. It holds no SGR sequence, so that a check may let
// the output's own colours through (see TerminalSafe).
const Hostile = "Eve\x1b]0;pwned\x07\x1b[2J\u009b31mRed\x7fDel \u202egnp.exe \u2066iso\u2069 \u2028ls\u2029ps\x0b\x08end"

// HostileStored is Hostile and the rest of what a database may hold (text
// stored before the text rules, a receiver's response body) and a client
// must show escaped or keep exact: a newline, a tab, a carriage return,
// the C1 next line U+0085, every bidirectional embedding and override, and
// the implicit direction marks U+200E, U+200F and U+061C, which text shows
// as they are and JSON and YAML write as escapes. It holds no NUL, which
// neither database stores, and is UTF-8, as PostgreSQL requires.
const HostileStored = Hostile + "\nline\ttab\rret\u0085nel \u202a\u202b\u202c\u202d\u2067\u2068 \u200emark\u200f \u061calm"

// HostileEscaped is Hostile as clients show it.
var HostileEscaped = api.EscapeText(Hostile)

// HostileURL is a webhook URL with the same characters.
const HostileURL = "https://crm.example/" + Hostile

// Trainee is the hostile trainee: every text member is Hostile.
func Trainee() *api.Trainee {
	h, trainer := Hostile, int64(7)
	return &api.Trainee{ID: 41, UserID: 977, Name: h, Email: h, Username: h, PhoneNumber: &h, Enabled: true,
		CompanyID: 1, TrainerID: &trainer, CreatedByType: h, WeightUnit: h, Authorities: []string{h}}
}

// Server serves the API's reads with Hostile in every text member
// (trainees, search, trainers, tracked data, the current key, webhooks and
// their deliveries and test, automations and their runs, events) and the
// deletes of a trainee, a webhook and an automation (answered with the
// hostile resource), and answers every other request with a 400 whose
// messages are Hostile, on the field "name" and then on a field named
// Hostile. It is closed when t ends.
func Server(t testing.TB) *httptest.Server {
	h := Hostile
	url := HostileURL
	now := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	day := api.DateOf(now)
	tr := Trainee()
	one := api.PageInfo{Size: 20, TotalElements: 1, TotalPages: 1, TotalExact: true}
	payload, _ := json.Marshal(api.WebhookEvent{Type: h, Timestamp: now.Unix(), Data: api.WebhookData{Trainee: tr, ChangedFields: []string{h}}})
	status, latency, days := 500, 12.5, 30
	traineeID := int64(41)
	hook := &api.Webhook{ID: 3, CompanyID: 1, URL: url, Events: []string{h}, State: h, CreatedAt: now}
	auto := &api.Automation{ID: 9, Name: h, Enabled: true, Trigger: api.AutomationTrigger{Type: h, Days: &days},
		Conditions: api.AutomationConditions{Status: &h}, ActionType: h, Action: api.AutomationAction{URL: &url},
		CreatedAt: now, UpdatedAt: now, LastRunAt: &now, RunCount: 1}
	answers := map[string]any{
		"GET " + api.PathSearch:             api.TraineePage{Content: []*api.Trainee{tr}, Page: one},
		"GET " + api.PathTrainees + "/{id}": api.TraineeEnvelope{Trainee: tr},
		"GET " + api.PathTrainers:           api.TrainerList{Trainers: []api.TrainerSummary{{ID: 7, Name: h, Email: h}}},
		"GET " + api.PathCurrentKey:         api.CurrentKeyEnvelope{Key: &api.CurrentKey{ID: 1, Name: h, Prefix: h, Scope: api.KeyScopeFull, CompanyID: 1, CompanyName: h, CreatedAt: now}},
		"GET " + api.PathTrainees + "/{id}/weight-history": api.WeightHistory{TraineeID: 41, From: day.AddDays(-29), To: day, Unit: h,
			Entries: []api.WeightEntry{{Date: day.AddDays(-1), Weight: 80}, {Date: day, Weight: 79.5}}},
		"GET " + api.PathTrainees + "/{id}/measurements": api.Measurements{TraineeID: 41, From: day.AddDays(-29), To: day,
			Measurements: []api.Measurement{{Date: day, Type: h, Name: &h, Value: 17, Unit: h}, {Date: day, Type: h, Value: 18, Unit: h}}},
		"GET " + api.PathTrainees + "/{id}/nutrition": api.Nutrition{TraineeID: 41, Date: day,
			Meals: []api.Meal{{Meal: h, Items: []api.NutritionItem{{Name: h, Quantity: 80, Unit: h, Calories: 300, Protein: 10, Carbs: 54, Fat: 5}}}}},
		"GET " + api.PathTrainees + "/{id}/average-steps": api.AverageSteps{TraineeID: 41, From: day.AddDays(-6), To: day},
		"GET " + api.PathWebhooks:                         api.WebhookList{Webhooks: []*api.Webhook{hook}},
		"GET " + api.PathWebhooks + "/{id}":               api.WebhookEnvelope{Webhook: hook},
		"DELETE " + api.PathWebhooks + "/{id}":            api.WebhookEnvelope{Webhook: hook},
		"DELETE " + api.PathTrainees + "/{id}":            api.TraineeEnvelope{Trainee: tr},
		"DELETE " + api.PathAutomations + "/{id}":         api.AutomationEnvelope{Automation: auto},
		"GET " + api.PathWebhooks + "/{id}/deliveries": api.WebhookDeliveries{Size: 20, HasMore: true, Deliveries: []*api.WebhookAttempt{
			{DeliveryID: 1, EventID: h, Type: h, TraineeID: &traineeID, TraineeName: &h, Attempt: 1, StatusCode: &status, LatencyMs: &latency, Error: &h, Response: &h, Time: now, State: h}}},
		"POST " + api.PathWebhooks + "/{id}/test": api.WebhookTestResult{EventID: h, StatusCode: &status, LatencyMs: latency, Error: &h, Response: &h},
		"GET " + api.PathAutomations:              api.AutomationPage{Page: one, Content: []*api.Automation{auto}},
		"GET " + api.PathAutomations + "/{id}/runs": api.AutomationRunPage{Page: one, Content: []*api.AutomationRun{
			{ID: 5, AutomationID: 9, TraineeID: 41, FiredAt: now, Occurrence: h, Outcome: h, Error: &h}}},
		"GET " + api.PathEvents: api.EventPage{Events: []*api.Event{{ID: h, Type: h, CreatedAt: now, Payload: payload,
			Actor: &api.Actor{Type: api.ActorKey, ID: 3, Name: h}}}, Next: h, HasMore: true},
	}
	mux := http.NewServeMux()
	write := func(w http.ResponseWriter, code int, v any) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		_ = json.NewEncoder(w).Encode(v)
	}
	for pattern, v := range answers {
		mux.HandleFunc(pattern, func(w http.ResponseWriter, _ *http.Request) { write(w, http.StatusOK, v) })
	}
	mux.HandleFunc("/", func(w http.ResponseWriter, _ *http.Request) {
		write(w, http.StatusBadRequest, api.ErrorBody{ErrorCode: api.CodeControlChar, Message: h, Field: "name",
			Errors: []api.FieldError{{ErrorCode: api.CodeControlChar, Message: h, Field: "name"}, {ErrorCode: api.CodeInvalidEmail, Message: h, Field: h}}})
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// own is a sequence an output writes itself: Select Graphic Rendition
// (colours, bold) and Erase in Line (a progress bar redrawn in place).
var own = regexp.MustCompile(`^\x1b\[(?:[0-9;:]*m|K)`)

// TerminalSafe returns an error naming the first thing in out a terminal
// would act on: a C0 control other than newline, tab and carriage return
// (the output's own framing), DEL, a C1 control, a bidirectional
// formatting character, or a byte that is not UTF-8. The output's own SGR
// and Erase in Line sequences are let through; Hostile holds neither.
func TerminalSafe(out string) error {
	for i := 0; i < len(out); {
		c := out[i]
		if m := own.FindString(out[i:]); c == 0x1b && m != "" {
			i += len(m)
			continue
		}
		r, n := utf8.DecodeRuneInString(out[i:])
		switch {
		case c < 0x20 && c != '\n' && c != '\t' && c != '\r',
			r == utf8.RuneError && n == 1,
			api.EscapeFramed(out[i:i+n]) != out[i:i+n]:
			return fmt.Errorf("%U at byte %d: %q", r, i, around(out, i))
		}
		i += n
	}
	return nil
}

// Unescaped returns an error naming the first character of out that is
// neither the format's own framing (the C0 controls in framing: "\n" for
// JSON, YAML, CSV and a table on a terminal, "\n\t" for tab-separated
// lines) nor safe to show: any other C0 control, DEL, a C1 control, a
// bidirectional formatting character, U+2028 or U+2029, a byte that is not
// UTF-8, and with marks the implicit direction marks (which JSON and YAML
// escape, text shows). Unlike TerminalSafe it lets no escape sequence
// through: it is for output that paints nothing.
func Unescaped(out, framing string, marks bool) error {
	for i := 0; i < len(out); {
		r, n := utf8.DecodeRuneInString(out[i:])
		c := out[i : i+n]
		switch {
		case r < 0x20 && !strings.ContainsRune(framing, r),
			r == utf8.RuneError && n == 1,
			api.EscapeFramed(c) != c,
			marks && api.EscapeDocument(c) != c:
			return fmt.Errorf("%U at byte %d: %q", r, i, around(out, i))
		}
		i += n
	}
	return nil
}

func around(s string, i int) string {
	from, to := max(i-30, 0), min(i+30, len(s))
	return strings.ToValidUTF8(s[from:to], "?")
}
