package commands

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/traineed/traineed/api/client"
	"github.com/traineed/traineed/cmd/traineectl/internal/cmdutil"
	"github.com/traineed/traineed/cmd/traineectl/internal/iostreams"
)

// With no address configured anywhere, a connection failure says that the
// address used is the default and how to set another. (The default,
// 127.0.0.1:8080, may be served on the test machine: the hint is checked
// on the error, not on a real connection.)
func TestAddressHintNamesTheDefault(t *testing.T) {
	ios, _, errOut := iostreams.Test("")
	env := map[string]string{"XDG_CONFIG_HOME": t.TempDir(), cmdutil.EnvAPIKey: "pk_" + strings.Repeat("x", 40)}
	f := &cmdutil.Factory{IOStreams: ios, Getenv: func(k string) string { return env[k] }, Now: time.Now}
	if _, err := f.Client(); err != nil {
		t.Fatal(err)
	}
	addressHint(f, &client.NetworkError{CallInfo: client.CallInfo{Method: "GET", URL: cmdutil.DefaultBaseURL + "/public-api/trainees/search"}, Err: errors.New("connection refused")})
	want := "hint: http://127.0.0.1:8080 is the default address: no --base-url, TRAINEECTL_BASE_URL or profile gives one; set it with `traineectl config set-profile NAME --base-url URL`\n"
	if errOut.String() != want {
		t.Errorf("got %q\nwant %q", errOut.String(), want)
	}
}
