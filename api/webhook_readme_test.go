package api_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/traineed/traineed/api"
)

// verify is the README's standard-library verification snippet, verbatim:
// keep the two in step.
func verify(secret string, h http.Header, body []byte) bool {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if err != nil {
		return false
	}
	ts, err := strconv.ParseInt(h.Get("webhook-timestamp"), 10, 64)
	if err != nil || time.Since(time.Unix(ts, 0)).Abs() > 5*time.Minute {
		return false // a replay, or a clock far off
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(h.Get("webhook-id") + "." + h.Get("webhook-timestamp") + "."))
	mac.Write(body)
	want := "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil))
	for _, sig := range strings.Fields(h.Get("webhook-signature")) {
		if hmac.Equal([]byte(sig), []byte(want)) {
			return true
		}
	}
	return false
}

// The README's snippet accepts what the dispatcher signs and refuses what
// api.VerifyWebhook refuses.
func TestReadmeVerifySnippet(t *testing.T) {
	secret := api.GenerateWebhookSecret()
	body := []byte(`{"type":"trainee.created","timestamp":1795000000,"data":{}}`)
	headers := func(id string, ts int64, b []byte) http.Header {
		sig, err := api.SignWebhook(secret, id, ts, b)
		must(t, err)
		h := http.Header{}
		h.Set("webhook-id", id)
		h.Set("webhook-timestamp", strconv.FormatInt(ts, 10))
		h.Set("webhook-signature", sig)
		return h
	}
	now := time.Now().Unix()
	good := headers("evt_abc", now, body)
	if !verify(secret, good, body) || api.VerifyWebhook(secret, good, body, time.Now()) != nil {
		t.Fatal("a good delivery is refused")
	}
	for name, c := range map[string]struct {
		secret string
		h      http.Header
		body   []byte
	}{
		"tampered body": {secret, good, []byte(`{"type":"trainee.deleted"}`)},
		"other secret":  {api.GenerateWebhookSecret(), good, body},
		"old":           {secret, headers("evt_abc", now-600, body), body},
		"other id":      {secret, func() http.Header { h := good.Clone(); h.Set("webhook-id", "evt_abd"); return h }(), body},
	} {
		if verify(c.secret, c.h, c.body) || api.VerifyWebhook(c.secret, c.h, c.body, time.Now()) == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
