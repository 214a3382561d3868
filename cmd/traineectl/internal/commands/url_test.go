package commands_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/apitest"
)

// traineectl refuses, before sending anything, a URL the server's one rule
// refuses (apitest.URLCases, the cases of the server's and traineed's
// tests): a usage error (exit 2) with the server's errorCode, for every
// command that sends a URL. Where a URL may lead is the server's policy:
// those (1018) and the accepted ones are sent (the stub server answers a
// 400, never a usage error).
func TestURLRuleRefusedLocally(t *testing.T) {
	h := newHarness(t, apitest.Server(t).URL, stubKey)
	for _, c := range apitest.URLCases() {
		for _, args := range [][]string{
			{"webhooks", "add", "--url", c.URL},
			{"webhooks", "update", "3", "--url", c.URL},
			{"automations", "create", "--name", "x", "--trigger", "TRAINEE_CREATED", "--action", "WEBHOOK", "--url", c.URL},
			{"automations", "update", "9", "--url", c.URL},
		} {
			r := h.run(args...)
			local := c.Code == api.CodeInvalidParameter || c.Code == api.CodeControlChar
			switch {
			case local && (r.code != 2 || !strings.Contains(r.err, fmt.Sprintf("(%d)", c.Code))):
				t.Errorf("%s: traineectl %s: want a usage error with errorCode %d, got %.400s", c.Name, args[:2], c.Code, r)
			case !local && r.code == 2:
				t.Errorf("%s: traineectl %s: refused locally: %.400s", c.Name, args[:2], r)
			}
			if err := apitest.TerminalSafe(r.err); err != nil {
				t.Errorf("%s: traineectl %s: %v", c.Name, args[:2], err)
			}
		}
	}
}
