package api

import (
	"encoding/base64"
	"errors"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"testing"
	"time"
)

// The Standard Webhooks reference vector: a receiver's stock library must
// accept what we send.
func TestSignWebhookReferenceVector(t *testing.T) {
	const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	body := []byte(`{"test": 2432232314}`)
	sig, err := SignWebhook(secret, "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, body)
	if err != nil {
		t.Fatal(err)
	}
	if want := "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="; sig != want {
		t.Fatalf("signature %q, want %q", sig, want)
	}
	h := http.Header{}
	h.Set("webhook-id", "msg_p5jXN8AQM9LWM0D4loKWxJek")
	h.Set("webhook-timestamp", "1614265330")
	h.Set("webhook-signature", "v1,bm9wZQ== v2,abc "+sig) // several signatures: any may match
	if err := VerifyWebhook(secret, h, body, time.Unix(1614265330+60, 0)); err != nil {
		t.Fatalf("verify: %v", err)
	}
}

func TestVerifyWebhookRefuses(t *testing.T) {
	secret := GenerateWebhookSecret()
	body := []byte(`{"type":"trainee.created"}`)
	now := time.Unix(1_800_000_000, 0)
	signed := func(id string, ts int64) http.Header {
		sig, err := SignWebhook(secret, id, ts, body)
		if err != nil {
			t.Fatal(err)
		}
		h := http.Header{}
		h.Set("webhook-id", id)
		h.Set("webhook-timestamp", strconv.FormatInt(ts, 10))
		h.Set("webhook-signature", sig)
		return h
	}
	if err := VerifyWebhook(secret, signed("evt_1", now.Unix()), body, now); err != nil {
		t.Fatalf("good delivery: %v", err)
	}
	for name, c := range map[string]struct {
		secret string
		h      http.Header
		body   []byte
		want   error
	}{
		"other body":    {secret, signed("evt_1", now.Unix()), []byte(`{"type":"trainee.deleted"}`), ErrWebhookSignature},
		"other secret":  {GenerateWebhookSecret(), signed("evt_1", now.Unix()), body, ErrWebhookSignature},
		"too old":       {secret, signed("evt_1", now.Unix()-301), body, ErrWebhookTimestamp},
		"in the future": {secret, signed("evt_1", now.Unix()+301), body, ErrWebhookTimestamp},
		"no id":         {secret, func() http.Header { h := signed("evt_1", now.Unix()); h.Del("webhook-id"); return h }(), body, ErrWebhookHeaders},
		"id swapped":    {secret, func() http.Header { h := signed("evt_1", now.Unix()); h.Set("webhook-id", "evt_2"); return h }(), body, ErrWebhookSignature},
		"bad timestamp": {secret, func() http.Header { h := signed("evt_1", now.Unix()); h.Set("webhook-timestamp", "soon"); return h }(), body, ErrWebhookHeaders},
		"wrong version": {secret, func() http.Header {
			h := signed("evt_1", now.Unix())
			h.Set("webhook-signature", "v2"+h.Get("webhook-signature")[2:])
			return h
		}(), body, ErrWebhookSignature},
		"no signature":   {secret, func() http.Header { h := signed("evt_1", now.Unix()); h.Del("webhook-signature"); return h }(), body, ErrWebhookHeaders},
		"garbage secret": {"whsec_!!!", signed("evt_1", now.Unix()), body, nil},
	} {
		err := VerifyWebhook(c.secret, c.h, c.body, now)
		if err == nil || (c.want != nil && !errors.Is(err, c.want)) {
			t.Errorf("%s: err = %v, want %v", name, err, c.want)
		}
	}
}

func TestGenerateWebhookSecret(t *testing.T) {
	a, b := GenerateWebhookSecret(), GenerateWebhookSecret()
	if a == b {
		t.Fatal("two secrets are equal")
	}
	if !regexp.MustCompile(`^whsec_[A-Za-z0-9+/]{43}=$`).MatchString(a) {
		t.Fatalf("secret %q", a)
	}
	key, err := WebhookKey(a)
	if err != nil || len(key) != 32 {
		t.Fatalf("key of %q: %d bytes, %v", a, len(key), err)
	}
	raw, _ := base64.StdEncoding.DecodeString(a[len("whsec_"):])
	if !slices.Equal(raw, key) {
		t.Fatal("the key is not the decoded secret")
	}
	if id := NewWebhookEventID(); !regexp.MustCompile(`^evt_[A-Za-z0-9]{24}$`).MatchString(id) {
		t.Fatalf("event id %q", id)
	}
}

func TestParseWebhookEvents(t *testing.T) {
	for in, want := range map[string][]string{
		"":                                  TraineeEventTypes,
		"  ":                                TraineeEventTypes,
		"all":                               WebhookEventTypes,
		"trainee.deleted":                   {"trainee.deleted"},
		"trainee.restored, trainee.created": {"trainee.created", "trainee.restored"},
		"trainee.updated,trainee.updated":   {"trainee.updated"},
	} {
		got, err := ParseWebhookEvents(in)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("ParseWebhookEvents(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"trainee.archived", "trainee.created,", "TRAINEE.CREATED", "*"} {
		if _, err := ParseWebhookEvents(in); err == nil {
			t.Errorf("ParseWebhookEvents(%q) accepted", in)
		}
	}
}
