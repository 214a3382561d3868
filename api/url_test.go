package api_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/apitest"
)

// The one rule of a URL given to be sent requests to: each case with the
// errorCode it gets (0: the rule accepts it; where it may lead is the
// destination policy's, api/outbound). The paths that take a URL call it
// (their own tests hold them to apitest.URLCases).
func TestValidateURL(t *testing.T) {
	label63, label64 := strings.Repeat("a", 63), strings.Repeat("b", 64)
	name253 := strings.Repeat(label63+".", 3) + strings.Repeat("c", 61) // 4*63+1 = 253
	path := "https://crm.example/"
	cases := []struct {
		url  string
		code int
	}{
		{"https://crm.example/hooks/traineed", 0},
		{"https://crm.example/hooks?token=abc&x=%20y", 0},
		{"HTTPS://CRM.Example./in", 0}, // the scheme's case, a trailing dot
		{"http://crm.example:8080/", 0},
		{"http://127.0.0.1:8080/hook", 0},     // the policy's (1018)
		{"http://[::1]:9/x", 0},               // the policy's
		{"http://[::ffff:0:7f00:1]:9/x", 0},   // the policy's
		{"http://[fe80::1%25eth0]/", 0},       // the policy's
		{"http://0x7f.1/", 0},                 // inet_aton's spelling: the policy's
		{"https://user:pass@crm.example/", 0}, // credentials: the policy's (1018)
		{"https://bücher.example/", 0},        // not ASCII: the policy's (1018: its xn-- form)
		{"https://xn--bcher-kva.example/", 0},
		{"https://_acme-challenge.crm.example/", 0},
		{"https://" + label63 + ".example/", 0},
		{"https://" + name253 + "/", 0},
		{"https://" + name253 + "./", 0},
		{path + strings.Repeat("p", api.MaxURLLength-len(path)), 0},

		{"", api.CodeInvalidParameter},
		{"ftp://crm.example/x", api.CodeInvalidParameter},
		{"javascript:alert(1)", api.CodeInvalidParameter},
		{"mailto:ops@crm.example", api.CodeInvalidParameter},
		{"crm.example/hook", api.CodeInvalidParameter},
		{"//crm.example/hook", api.CodeInvalidParameter},
		{"https:///path", api.CodeInvalidParameter},
		{"http://", api.CodeInvalidParameter},
		{"http://:8080/", api.CodeInvalidParameter},
		{"https:crm.example", api.CodeInvalidParameter},
		{"https://crm.example/#frag", api.CodeInvalidParameter},
		{"https://crm.example/#", api.CodeInvalidParameter},
		{path + strings.Repeat("p", api.MaxURLLength+1-len(path)), api.CodeInvalidParameter},
		{path + strings.Repeat("p", 70000-len(path)), api.CodeInvalidParameter},
		{" https://crm.example/", api.CodeInvalidParameter},
		{"https://crm.example/ ", api.CodeInvalidParameter},
		{"https://crm.example/a b", api.CodeInvalidParameter},
		{"https://crm example/", api.CodeInvalidParameter},
		{"\u00a0https://crm.example/", api.CodeInvalidParameter}, // no-break space
		{"https://crm.example/\u3000", api.CodeInvalidParameter}, // ideographic space
		{"https://" + label64 + ".example/", api.CodeInvalidParameter},
		{"https://" + strings.Repeat("a", 300) + ".example/", api.CodeInvalidParameter},
		{"https://" + name253 + "d/", api.CodeInvalidParameter}, // 254
		{"https://crm..example/", api.CodeInvalidParameter},
		{"https://.crm.example/", api.CodeInvalidParameter},
		{"https://-crm.example/", api.CodeInvalidParameter},
		{"https://crm-.example/", api.CodeInvalidParameter},
		{"https://crm!.example/", api.CodeInvalidParameter},
		{"https://crm.example:port/", api.CodeInvalidParameter},
		{"http://[zz::1]/", api.CodeInvalidParameter},

		{"https://crm.example/\x00", api.CodeControlChar},
		{"https://crm.example/\thook", api.CodeInvalidParameter}, // tab: text may hold it, a URL not
		{"https://crm.example/\nhook", api.CodeControlChar},
		{"https://crm.example/\u202egnp.exe", api.CodeControlChar},
		{" https://crm.example/\x1b", api.CodeControlChar}, // the first check that fails
	}
	for _, c := range cases {
		err := api.ValidateURL("url", c.url)
		if got := code(t, err); got != c.code {
			t.Errorf("ValidateURL(%.80q): %v; want errorCode %d", c.url, err, c.code)
		}
		if err != nil {
			if fe := err.(*api.ValidationError).Errors; len(fe) != 1 || fe[0].Field != "url" || !strings.HasPrefix(fe[0].Message, "url ") || len(fe[0].Message) > 300 {
				t.Errorf("ValidateURL(%.80q): %+v", c.url, fe)
			}
		}
		flagErr := api.ValidateURLFlag("--url", c.url)
		if (flagErr == nil) != (c.code == 0) || flagErr != nil && !strings.HasPrefix(flagErr.Error(), "--url ") {
			t.Errorf("ValidateURLFlag(%.80q): %v", c.url, flagErr)
		}
	}
	// The shared cases: the rule gives their code, but the destination's.
	for _, c := range apitest.URLCases() {
		want := c.Code
		if want == api.CodeDestinationNotAllowed {
			want = 0
		}
		if got := code(t, api.ValidateURL("url", c.URL)); got != want {
			t.Errorf("%s: errorCode %d, want %d", c.Name, got, want)
		}
	}
}

// code is err's errorCode, 0 for nil.
func code(t *testing.T, err error) int {
	t.Helper()
	if err == nil {
		return 0
	}
	var v *api.ValidationError
	if !errors.As(err, &v) || len(v.Errors) == 0 {
		t.Fatalf("%v: not a validation error", err)
	}
	return v.Errors[0].ErrorCode
}
