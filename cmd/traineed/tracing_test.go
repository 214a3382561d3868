package main

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	collectortrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"
)

// TestTracingEnabled: tracing is on only when an OTLP endpoint is named,
// and OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none turn it off.
func TestTracingEnabled(t *testing.T) {
	for _, c := range []struct {
		env  map[string]string
		want bool
	}{
		{map[string]string{}, false},
		{map[string]string{"OTEL_SERVICE_NAME": "x"}, false},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"}, true},
		{map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://127.0.0.1:4318/v1/traces"}, true},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318", "OTEL_SDK_DISABLED": "true"}, false},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318", "OTEL_SDK_DISABLED": "TRUE"}, false},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318", "OTEL_TRACES_EXPORTER": "none"}, false},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318", "OTEL_TRACES_EXPORTER": "otlp"}, true},
	} {
		if got := tracingEnabled(func(k string) string { return c.env[k] }); got != c.want {
			t.Errorf("%v: enabled %v, want %v", c.env, got, c.want)
		}
	}
}

// TestServeRefusesOtherTraceExporters: an exporter or an OTLP protocol
// traineed does not have is a usage error at start, not a silent no-op.
func TestServeRefusesOtherTraceExporters(t *testing.T) {
	for _, env := range []map[string]string{
		{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318", "OTEL_TRACES_EXPORTER": "zipkin"},
		{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"},
	} {
		_, _, err := startTracing(t.Context(), func(k string) string { return env[k] }, nil)
		var u usageError
		if !errors.As(err, &u) {
			t.Errorf("%v: error %v, want a usage error", env, err)
		}
	}
}

// TestServeExportsTraces runs `traineed serve` with OTEL_EXPORTER_OTLP_ENDPOINT
// naming a collector on 127.0.0.1: the spans of a request reach it by OTLP
// over HTTP (protobuf), under service.name traineed, and the request's
// log line carries the span's trace_id.
func TestServeExportsTraces(t *testing.T) {
	var mu sync.Mutex
	var got []*collectortrace.ExportTraceServiceRequest
	collector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		req := new(collectortrace.ExportTraceServiceRequest)
		if r.URL.Path != "/v1/traces" || r.Header.Get("Content-Type") != "application/x-protobuf" || proto.Unmarshal(body, req) != nil {
			t.Errorf("collector got %s %s (%s)", r.Method, r.URL.Path, r.Header.Get("Content-Type"))
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		mu.Lock()
		got = append(got, req)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/x-protobuf")
		w.WriteHeader(http.StatusOK)
	}))
	defer collector.Close()
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", collector.URL)
	t.Setenv("OTEL_BSP_SCHEDULE_DELAY", "50") // ms: export soon
	base, cmd, logs := startServer(t, "sqlite:"+filepath.Join(t.TempDir(), "t.db"))
	res, err := http.Get(base + "/healthz")
	must(t, err)
	res.Body.Close()
	reqID := res.Header.Get("X-Request-Id")

	deadline := time.Now().Add(20 * time.Second)
	var traceID string
	for traceID == "" {
		if time.Now().After(deadline) {
			stop(t, cmd, logs)
			t.Fatalf("no GET /healthz span reached the collector; logs:\n%s", logs.String())
		}
		time.Sleep(20 * time.Millisecond)
		mu.Lock()
		for _, req := range got {
			for _, rs := range req.ResourceSpans {
				service := ""
				for _, kv := range rs.Resource.Attributes {
					if kv.Key == "service.name" {
						service = kv.Value.GetStringValue()
					}
				}
				for _, ss := range rs.ScopeSpans {
					for _, sp := range ss.Spans {
						if sp.Name == "GET /healthz" {
							if service != "traineed" {
								t.Errorf("service.name %q, want traineed", service)
							}
							traceID = hex.EncodeToString(sp.TraceId)
						}
					}
				}
			}
		}
		mu.Unlock()
	}
	stop(t, cmd, logs) // flushes the last spans; the log is read once it has ended
	var line map[string]any
	for l := range strings.SplitSeq(logs.String(), "\n") {
		var m map[string]any
		if json.Unmarshal([]byte(l), &m) == nil && m["msg"] == "request" && m["request_id"] == reqID {
			line = m
		}
	}
	if line == nil || line["trace_id"] != traceID {
		t.Errorf("request log line %v, want trace_id %s", line, traceID)
	}
	if !strings.Contains(logs.String(), `"msg":"tracing on"`) {
		t.Errorf("no \"tracing on\" line:\n%s", logs.String())
	}
}
