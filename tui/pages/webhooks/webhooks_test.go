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
