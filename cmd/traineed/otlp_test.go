package main

import (
	"compress/gzip"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
)

// TestOTLPHTTPClient: the variables as the specification reads them (the
// traces' own over the general ones, headers URL-decoded), and a gzip
// upload that a collector reads back as an ExportTraceServiceRequest.
func TestOTLPHTTPClient(t *testing.T) {
	var got struct {
		path, auth, enc string
		spans           []*tracepb.ResourceSpans
	}
	col := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got.path, got.auth, got.enc = r.URL.Path, r.Header.Get("Authorization"), r.Header.Get("Content-Encoding")
		zr, err := gzip.NewReader(r.Body)
		if err != nil {
			t.Error(err)
			return
		}
		body, _ := io.ReadAll(zr)
		for len(body) > 0 {
			num, typ, n := protowire.ConsumeTag(body)
			if num != 1 || typ != protowire.BytesType || n < 0 {
				t.Errorf("field %d type %d", num, typ)
				return
			}
			b, m := protowire.ConsumeBytes(body[n:])
			rs := new(tracepb.ResourceSpans)
			if err := proto.Unmarshal(b, rs); err != nil {
				t.Error(err)
			}
			got.spans = append(got.spans, rs)
			body = body[n+m:]
		}
	}))
	defer col.Close()
	env := map[string]string{
		"OTEL_EXPORTER_OTLP_ENDPOINT":        "http://unused.invalid:4318",
		"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": col.URL + "/custom/traces",
		"OTEL_EXPORTER_OTLP_HEADERS":         "Authorization=Bearer%20general",
		"OTEL_EXPORTER_OTLP_TRACES_HEADERS":  "Authorization=Bearer%20abc, x-tenant = gym",
		"OTEL_EXPORTER_OTLP_COMPRESSION":     "gzip",
	}
	c, err := newOTLPHTTP(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	spans := []*tracepb.ResourceSpans{{SchemaUrl: "a"}, {SchemaUrl: "b"}}
	if err := c.UploadTraces(context.Background(), spans); err != nil {
		t.Fatal(err)
	}
	if got.path != "/custom/traces" || got.auth != "Bearer abc" || got.enc != "gzip" {
		t.Errorf("path %q auth %q encoding %q", got.path, got.auth, got.enc)
	}
	if len(got.spans) != 2 || got.spans[0].SchemaUrl != "a" || got.spans[1].SchemaUrl != "b" {
		t.Errorf("collector read %v", got.spans)
	}
	for _, bad := range []map[string]string{
		{"OTEL_EXPORTER_OTLP_ENDPOINT": "collector:4318"},
		{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_EXPORTER_OTLP_TIMEOUT": "10s"},
		{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_EXPORTER_OTLP_COMPRESSION": "zstd"},
	} {
		if _, err := newOTLPHTTP(func(k string) string { return bad[k] }); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
	env = map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318/"}
	if c, _ := newOTLPHTTP(func(k string) string { return env[k] }); c == nil || c.url != "http://c:4318/v1/traces" {
		t.Errorf("base endpoint gave %+v", c)
	}
}
