package commands_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/olekukonko/tablewriter/pkg/twwidth"

	"github.com/traineed/traineed/api/client"
	"github.com/traineed/traineed/cmd/traineectl/internal/iostreams"
	"github.com/traineed/traineed/store/storetest"
)

// Every table that traineectl prints fits a terminal of 80 and of 120
// columns over the demo data: no line is wider than the screen (a wider
// one wraps mid-cell: "2026-11-" / "28 00:31"), empty columns going first,
// then the least useful.
func TestTablesFitTheTerminal(t *testing.T) {
	ctx := context.Background()
	h, c := demoServer(t)
	page, err := c.SearchTrainees(ctx, client.SearchParams{Size: 5})
	must(t, err)
	id := fmt.Sprint(page.Content[0].ID)
	rc := storetest.NewReceiver(t, nil)
	wh := h.run("webhooks", "add", "--url", rc.URL+"/a-rather-long-path/of/a/receiver/that/takes/room", "-o", "json").expect(t, 0).out
	whID := strings.TrimSpace(strings.Split(strings.Split(wh, `"id": `)[1], ",")[0])
	h.run("automations", "create", "--name", "Idle members of a long-named coach", "--trigger", "INACTIVE", "--days", "14",
		"--trainer", "Maya Brooks", "--action", "WEBHOOK", "--url", "https://crm.example/hooks/inactive-members").expect(t, 0)
	h.run("update", id, "--name", "Ada Parkinson-Whitfield").expect(t, 0)
	lines := [][]string{
		{"search"}, {"search", "--status", "all"}, {"get", id}, {"trainers", "list"}, {"whoami"},
		{"weight", id}, {"measurements", id}, {"nutrition", id, "--date", "20-11-2026"}, {"steps", id}, {"steps", id, "--daily"},
		{"webhooks", "list"}, {"webhooks", "deliveries", whID}, {"automations", "list"}, {"events", "list"},
		{"keys", "list"}, {"company", "get"},
		{"update", "--from-search", "status=active", "--extend", "30d", "--dry-run"},
	}
	for _, width := range []int{80, 120} {
		for _, args := range lines {
			r := h.runWith(runOpts{tty: true, setup: func(ios *iostreams.IOStreams) { ios.Width = width }}, args...)
			if r.code != 0 {
				t.Errorf("%v: %s", args, r)
				continue
			}
			for _, l := range strings.Split(r.out, "\n") {
				if w := twwidth.Width(l); w > width {
					t.Errorf("traineectl %s at %d columns: a line of %d:\n%s", strings.Join(args, " "), width, w, l)
				}
			}
		}
	}
}
