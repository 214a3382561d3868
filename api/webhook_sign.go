package api

import (
	"strings"
	"time"
)

// SignWebhookAll returns the webhook-signature header of a delivery signed
// with every secret: space-separated v1 signatures, as Standard Webhooks
// allows while a secret is rotated.
func SignWebhookAll(secrets []string, id string, timestamp int64, body []byte) (string, error) {
	sigs := make([]string, 0, len(secrets))
	for _, s := range secrets {
		sig, err := SignWebhook(s, id, timestamp, body)
		if err != nil {
			return "", err
		}
		sigs = append(sigs, sig)
	}
	return strings.Join(sigs, " "), nil
}

// WebhookResult is what one HTTP attempt of a delivery gave.
type WebhookResult struct {
	Started    time.Time
	StatusCode int // 0 when no response came
	Latency    time.Duration
	Err        string // why it failed, without the URL
	Body       string // the first MaxWebhookResponse bytes, valid UTF-8
}

// OK reports whether the receiver answered 2xx.
func (r WebhookResult) OK() bool { return r.StatusCode >= 200 && r.StatusCode < 300 }
