package webhooks

import (
	"strings"
	"testing"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/tui/components/table"
	"github.com/traineed/traineed/tui/internal/common"
)

// The webhooks' columns are as wide as what they hold, and the URL comes
// first: at 80 columns a long URL shows whole and a long events list is
// cut; "all" takes no more room than its header.
func TestWebhookColumnsFitTheirContent(t *testing.T) {
	url := "https://crm.example.com/integrations/traineed/receive?t=42" // 55 cells
	w := &Model{Common: &common.Common{Width: 80}}
	w.Hooks = []*api.Webhook{
		{ID: 1, State: "active", Events: api.WebhookEventTypes, URL: "http://127.0.0.1:9/hook"},
		{ID: 12, State: "disabled", Events: api.WebhookEventTypes[:3], URL: url},
	}
	rows := w.HookRows()
	tb := table.FitCols(w.Width-2, w.HookCols(rows))
	if got := tb.Row(rows[1]...); !strings.Contains(got, url) || !strings.Contains(got, "…") {
		t.Fatalf("the URL is cut or the events are not: %q", got)
	}
	w.Hooks = w.Hooks[:1]
	rows = w.HookRows()
	tb = table.FitCols(w.Width-2, w.HookCols(rows))
	if got := tb.Header(); !strings.HasPrefix(got, "ID STATE  EVENTS URL") {
		t.Fatalf("header %q", got)
	}
}

// A delivery names the trainee its event was about: the name as it is
// now, else "#id" (erased since), else "-" (an event about no trainee);
// a name of 15 cells shows whole at 80 columns, one of 20 at 120, even
// beside an error.
func TestDeliveriesNameTheTrainee(t *testing.T) {
	for width, name := range map[int]string{80: "Runa Park-Brook", 120: "Ada Parkinson-Whitfi"} {
		deliveriesNameTheTrainee(t, width, name)
	}
}

func deliveriesNameTheTrainee(t *testing.T, width int, name string) {
	t.Helper()
	id, errText := int64(12), "connection refused by the receiver at 127.0.0.1:9"
	w := &Model{Common: &common.Common{Width: width}}
	w.Deliveries = []*api.WebhookAttempt{
		{EventID: "evt_0123456789abcdefghijklmn", Type: "trainee.updated", TraineeID: &id, TraineeName: &name, Attempt: 1, Error: &errText, State: "failed"},
		{EventID: "evt_1", Type: "trainee.created", TraineeID: &id, State: "pending"},
		{EventID: "evt_2", Type: "automation.fired", State: "pending"},
	}
	rows := w.DeliveryRows()
	for i, want := range []string{name, "#12", "-"} {
		if rows[i][deliveryTraineeCol] != want {
			t.Errorf("row %d: trainee %q, want %q", i, rows[i][deliveryTraineeCol], want)
		}
	}
	tb := table.FitCols(w.Width-2, w.DeliveryCols(rows))
	if !strings.Contains(tb.Header(), "TRAINEE") {
		t.Fatalf("header %q", tb.Header())
	}
	if got := tb.Row(rows[0]...); !strings.Contains(got, name) {
		t.Errorf("the name is cut at %d columns: %q", width, got)
	}
	if got := deliveryTraineeDetail(w.Deliveries[0]); got != name+" (#12)" {
		t.Errorf("detail %q", got)
	}
}
