package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"go.opentelemetry.io/otel/exporters/otlp/otlptrace"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
)

// otlpHTTP is the OTLP/HTTP (binary protobuf) client of the trace
// exporter: otlptrace turns spans into OTLP's messages, and this sends
// them. It stands in for otlptracehttp, which links gRPC and its gateway
// (2.5 MB more binary mapped into every instance, tracing on or off) to
// send what is one HTTP POST. It reads the standard variables:
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT (the whole URL) or
// OTEL_EXPORTER_OTLP_ENDPOINT (then /v1/traces), ..._HEADERS
// (key=value,... URL-encoded), ..._TIMEOUT (milliseconds, default 10000)
// and ..._COMPRESSION (gzip or none); the traces' variable wins over the
// general one. TLS uses the system's roots.
type otlpHTTP struct {
	url     string
	headers map[string]string
	gzip    bool
	client  *http.Client
}

var _ otlptrace.Client = (*otlpHTTP)(nil)

// newOTLPHTTP reads getenv's OTEL_EXPORTER_OTLP_* variables.
func newOTLPHTTP(getenv func(string) string) (*otlpHTTP, error) {
	pick := func(name string) string {
		if v := strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_TRACES_" + name)); v != "" {
			return v
		}
		return strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_" + name))
	}
	c := &otlpHTTP{headers: map[string]string{}, client: &http.Client{Timeout: 10 * time.Second}}
	if u := strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")); u != "" {
		c.url = u
	} else {
		c.url = strings.TrimRight(strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_ENDPOINT")), "/") + "/v1/traces"
	}
	if u, err := url.Parse(c.url); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("OTLP endpoint %q: want an http:// or https:// URL", c.url)
	}
	for _, kv := range strings.Split(pick("HEADERS"), ",") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			continue
		}
		k, _ = url.QueryUnescape(strings.TrimSpace(k))
		v, _ = url.QueryUnescape(strings.TrimSpace(v))
		c.headers[k] = v
	}
	if t := pick("TIMEOUT"); t != "" {
		ms, err := strconv.Atoi(t)
		if err != nil || ms <= 0 {
			return nil, fmt.Errorf("OTEL_EXPORTER_OTLP_TIMEOUT=%s: want milliseconds", t)
		}
		c.client.Timeout = time.Duration(ms) * time.Millisecond
	}
	switch comp := pick("COMPRESSION"); comp {
	case "", "none":
	case "gzip":
		c.gzip = true
	default:
		return nil, fmt.Errorf("OTEL_EXPORTER_OTLP_COMPRESSION=%s: want gzip or none", comp)
	}
	return c, nil
}

func (c *otlpHTTP) Start(context.Context) error { return nil }

func (c *otlpHTTP) Stop(context.Context) error {
	c.client.CloseIdleConnections()
	return nil
}

// UploadTraces posts an ExportTraceServiceRequest: its one field,
// repeated resource_spans = 1, written by hand (the collector's generated
// package would bring gRPC back).
func (c *otlpHTTP) UploadTraces(ctx context.Context, spans []*tracepb.ResourceSpans) error {
	var body []byte
	for _, rs := range spans {
		b, err := proto.Marshal(rs)
		if err != nil {
			return err
		}
		body = protowire.AppendTag(body, 1, protowire.BytesType)
		body = protowire.AppendBytes(body, b)
	}
	if c.gzip {
		var z bytes.Buffer
		w := gzip.NewWriter(&z)
		_, _ = w.Write(body)
		if err := w.Close(); err != nil {
			return err
		}
		body = z.Bytes()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/x-protobuf")
	if c.gzip {
		req.Header.Set("Content-Encoding", "gzip")
	}
	for k, v := range c.headers {
		req.Header.Set(k, v)
	}
	resp, err := c.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("OTLP collector %s answered %s", c.url, resp.Status)
	}
	return nil
}
