package apitest

import (
	"strings"

	"github.com/traineed/traineed/api"
)

// URLCase is a URL given to be sent requests to, with the errorCode every
// path that takes one answers (0: accepted): POST and PUT /webhooks, POST
// and PUT /automations' action.url, traineed webhook add, and traineectl's
// checks before sending (which answer the syntax's codes, 1012 and 1016,
// and leave the destination's, 1018, to the server).
type URLCase struct {
	Name string
	URL  string
	Code int
}

// URLCases are the URLs the paths that register one must judge alike: one
// rule (api.ValidateURL) and one destination policy (api/outbound).
func URLCases() []URLCase {
	long := "https://crm.example/hooks/"
	return []URLCase{
		{"a public https URL", "https://crm.example/hooks/traineed?token=abc", 0},
		{"70,000 characters", long + strings.Repeat("a", 70000-len(long)), api.CodeInvalidParameter},
		{"2,049 characters", long + strings.Repeat("a", 2049-len(long)), api.CodeInvalidParameter},
		{"a leading space", " https://crm.example/hooks/traineed", api.CodeInvalidParameter},
		{"a trailing space", "https://crm.example/hooks/traineed ", api.CodeInvalidParameter},
		{"a label of 300 characters", "https://" + strings.Repeat("a", 300) + ".example/hook", api.CodeInvalidParameter},
		{"a fragment", "https://crm.example/hooks#traineed", api.CodeInvalidParameter},
		{"an ftp URL", "ftp://crm.example/hooks", api.CodeInvalidParameter},
		{"an escape sequence", "https://crm.example/\x1b[2Jhooks", api.CodeControlChar},
		{"IPv4-translated loopback", "http://[::ffff:0:7f00:1]:8080/hook", api.CodeDestinationNotAllowed},
		{"credentials", "https://user:pass@crm.example/hook", api.CodeDestinationNotAllowed},
	}
}
