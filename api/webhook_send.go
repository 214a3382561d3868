package api

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
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

// NewWebhookClient returns the client deliveries use: its own transport,
// and redirects are not followed (a 3xx is a failed attempt).
func NewWebhookClient(maxIdlePerHost int) *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = maxIdlePerHost
	return &http.Client{
		Transport:     tr,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// SendWebhook makes one signed attempt: it POSTs body to target with the
// headers of Standard Webhooks, signed with every secret at started, and
// reads at most MaxWebhookResponse bytes of the answer, all within timeout.
func SendWebhook(ctx context.Context, client *http.Client, timeout time.Duration, target string, secrets []string, id string, started time.Time, body []byte) WebhookResult {
	res := WebhookResult{Started: started}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	ts := started.Unix()
	sig, err := SignWebhookAll(secrets, id, ts, body)
	if err != nil {
		res.Err = err.Error()
		return res
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, bytes.NewReader(body))
	if err != nil {
		res.Err = err.Error()
		return res
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "traineed-webhooks/1")
	req.Header.Set("webhook-id", id)
	req.Header.Set("webhook-timestamp", strconv.FormatInt(ts, 10))
	req.Header.Set("webhook-signature", sig)
	start := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		res.Latency = time.Since(start)
		res.Err = describeSendError(ctx, err, timeout)
		return res
	}
	defer resp.Body.Close()
	res.StatusCode = resp.StatusCode
	prefix, err := io.ReadAll(io.LimitReader(resp.Body, MaxWebhookResponse))
	res.Latency = time.Since(start)
	res.Body = strings.ToValidUTF8(strings.ReplaceAll(string(prefix), "\x00", ""), "\uFFFD")
	if err != nil && !res.OK() {
		res.Err = describeSendError(ctx, err, timeout)
	}
	if !res.OK() && res.Err == "" {
		res.Err = "status " + strconv.Itoa(resp.StatusCode)
	}
	// Drain a little more so the connection can be reused.
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	return res
}

// describeSendError says why an attempt failed, leaving out the URL (it
// may carry a token).
func describeSendError(ctx context.Context, err error, timeout time.Duration) string {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Sprintf("timeout: no complete response within %s", timeout)
	}
	if errors.Is(ctx.Err(), context.Canceled) {
		return "cancelled: the server shut down"
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return "timeout: " + err.Error()
	}
	return err.Error()
}
