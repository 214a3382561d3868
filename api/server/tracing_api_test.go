package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/outbound"
	"github.com/traineed/traineed/api/server"
	"github.com/traineed/traineed/jobs"
	"github.com/traineed/traineed/store"
	"github.com/traineed/traineed/store/storetest"
)

// lockedBuffer is a log destination the handler's goroutines write while
// the test reads it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// requestLine is the access log line of the request with id, decoded
// (nil when there is none yet).
func (b *lockedBuffer) requestLine(t *testing.T, id string) map[string]any {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, line := range strings.Split(b.buf.String(), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		if m["msg"] == "request" && m["request_id"] == id {
			return m
		}
	}
	return nil
}

// waitRequestLine waits for the access log line of id (it is written as
// the handler returns, which may be after the client has the answer).
func (b *lockedBuffer) waitRequestLine(t *testing.T, id string) map[string]any {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		if m := b.requestLine(t, id); m != nil {
			return m
		}
		if time.Now().After(deadline) {
			t.Fatalf("no access log line for request %s", id)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// tracedEnv is newEnv over s with every part traced into an in-memory
// exporter (each span exported as it ends) and a JSON access log.
func tracedEnv(t *testing.T, s *store.Store) (*env, *tracetest.InMemoryExporter, trace.TracerProvider, *lockedBuffer) {
	t.Helper()
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	s.SetTracerProvider(tp)
	logs := &lockedBuffer{}
	e := newEnv(t, s, server.WithTracerProvider(tp), server.WithLogger(slog.New(slog.NewJSONHandler(logs, nil))))
	return e, exp, tp, logs
}

// spansNamed are the spans of exp named name.
func spansNamed(exp *tracetest.InMemoryExporter, name string) []tracetest.SpanStub {
	var out []tracetest.SpanStub
	for _, s := range exp.GetSpans() {
		if s.Name == name {
			out = append(out, s)
		}
	}
	return out
}

// attr is the value of span's attribute key ("" when it has none).
func attr(s tracetest.SpanStub, key string) string {
	for _, kv := range s.Attributes {
		if string(kv.Key) == key {
			return kv.Value.Emit()
		}
	}
	return ""
}

// descends reports whether span is under ancestor in spans (same trace,
// parent by parent).
func descends(spans []tracetest.SpanStub, span, ancestor tracetest.SpanStub) bool {
	byID := map[trace.SpanID]tracetest.SpanStub{}
	for _, s := range spans {
		byID[s.SpanContext.SpanID()] = s
	}
	for cur := span; cur.Parent.IsValid(); {
		if cur.Parent.SpanID() == ancestor.SpanContext.SpanID() && cur.Parent.TraceID() == ancestor.SpanContext.TraceID() {
			return true
		}
		next, ok := byID[cur.Parent.SpanID()]
		if !ok {
			return false
		}
		cur = next
	}
	return false
}

// TestTracingCreateAndDelivery follows a create through its spans on both
// databases: the request's server span, under it the password hash, the
// store's statements and the outbox write; then the dispatcher's claim,
// and the delivery to a receiver on 127.0.0.1, a child of the claim
// linked to the create's outbox write, with the outbound client's POST
// under it. The access log line of the create carries the span's
// trace_id and span_id beside its request_id, and no span carries the
// trainee's name or e-mail.
func TestTracingCreateAndDelivery(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		e, exp, tp, logs := tracedEnv(t, s)
		rc := storetest.NewReceiver(t, storetest.OK)
		storetest.AddWebhook(t, s, e.companyA, rc.URL, api.EventTraineeCreated)
		exp.Reset()

		body := newTraineeBody("Traced Trainee")
		r := e.do("POST", "/public-api/trainees", e.keyA, body).expect(t, 200)
		reqID := r.Header.Get(api.HeaderRequestID)

		https := spansNamed(exp, "POST /public-api/trainees")
		if len(https) != 1 {
			t.Fatalf("server spans of the create: %d, want 1 (spans: %v)", len(https), spanNames(exp))
		}
		httpSpan := https[0]
		if httpSpan.SpanKind != trace.SpanKindServer || attr(httpSpan, "http.response.status_code") != "200" ||
			attr(httpSpan, "http.route") != "/public-api/trainees" || attr(httpSpan, "traineed.request_id") != reqID {
			t.Errorf("server span: kind %v, attributes %v", httpSpan.SpanKind, httpSpan.Attributes)
		}
		all := exp.GetSpans()
		hashes := spansNamed(exp, "password.hash")
		if len(hashes) != 1 || !descends(all, hashes[0], httpSpan) {
			t.Errorf("password.hash spans under the request: %d of %d", len(hashes), len(hashes))
		}
		outboxes := spansNamed(exp, "outbox.record")
		if len(outboxes) != 1 || !descends(all, outboxes[0], httpSpan) {
			t.Fatalf("outbox.record spans: %d (spans: %v)", len(outboxes), spanNames(exp))
		}
		outboxSpan := outboxes[0]
		if attr(outboxSpan, "traineed.event.type") != api.EventTraineeCreated || attr(outboxSpan, "traineed.deliveries") != "1" {
			t.Errorf("outbox.record attributes: %v", outboxSpan.Attributes)
		}
		system := map[string]string{store.DialectSQLite: "sqlite", store.DialectPostgres: "postgresql"}[s.Dialect()]
		stmts := map[string]int{}
		for _, sp := range all {
			if attr(sp, "db.system") == "" {
				continue
			}
			if attr(sp, "db.system") != system || attr(sp, "db.operation") != sp.Name || sp.SpanKind != trace.SpanKindClient {
				t.Errorf("statement span %q: kind %v, attributes %v", sp.Name, sp.SpanKind, sp.Attributes)
			}
			if descends(all, sp, httpSpan) {
				stmts[sp.Name]++
			}
		}
		if stmts["INSERT"] == 0 || stmts["SELECT"] == 0 {
			t.Errorf("statement spans under the request by operation: %v, want INSERT and SELECT among them", stmts)
		}
		for _, sp := range all {
			for _, kv := range sp.Attributes {
				v := kv.Value.Emit()
				if strings.Contains(v, body["email"].(string)) || strings.Contains(v, "Traced Trainee") {
					t.Errorf("span %q carries personal data: %s=%s", sp.Name, kv.Key, v)
				}
			}
		}

		stored := "00-" + httpSpan.SpanContext.TraceID().String() + "-" + outboxSpan.SpanContext.SpanID().String() + "-01"
		if n := storetest.Count(t, s, "webhook_events", "traceparent = ?", stored); n != 1 {
			t.Errorf("events with traceparent %s: %d, want 1", stored, n)
		}

		line := logs.waitRequestLine(t, reqID)
		if line["trace_id"] != httpSpan.SpanContext.TraceID().String() || line["span_id"] != httpSpan.SpanContext.SpanID().String() {
			t.Errorf("access log line: trace_id %v span_id %v, want the server span's %s %s",
				line["trace_id"], line["span_id"], httpSpan.SpanContext.TraceID(), httpSpan.SpanContext.SpanID())
		}

		ob := outbound.New(outbound.Config{Policy: outbound.Policy{Allow: storetest.Loopback}, TracerProvider: tp})
		d, err := jobs.NewDispatcher(s, jobs.DispatcherConfig{Outbound: ob, PollInterval: 20 * time.Millisecond, Timeout: 5 * time.Second, TracerProvider: tp})
		must(t, err)
		d.Start()
		rc.Wait(t, 1, 10*time.Second)
		sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		must(t, d.Shutdown(sctx)) // the delivery's span has ended

		delivers := spansNamed(exp, "webhook.deliver")
		if len(delivers) != 1 {
			t.Fatalf("webhook.deliver spans: %d (spans: %v)", len(delivers), spanNames(exp))
		}
		deliver := delivers[0]
		if len(deliver.Links) != 1 || deliver.Links[0].SpanContext.TraceID() != httpSpan.SpanContext.TraceID() ||
			deliver.Links[0].SpanContext.SpanID() != outboxSpan.SpanContext.SpanID() {
			t.Errorf("webhook.deliver links %v, want the create's outbox.record (trace %s, span %s)",
				deliver.Links, httpSpan.SpanContext.TraceID(), outboxSpan.SpanContext.SpanID())
		}
		if attr(deliver, "http.response.status_code") != "200" || attr(deliver, "traineed.webhook.attempt") != "1" {
			t.Errorf("webhook.deliver attributes: %v", deliver.Attributes)
		}
		var claimed bool
		for _, c := range spansNamed(exp, "webhook.claim") {
			if c.SpanContext.SpanID() == deliver.Parent.SpanID() && attr(c, "traineed.webhook.claimed") == "1" {
				claimed = true
			}
		}
		if !claimed {
			t.Errorf("webhook.deliver's parent %s is no webhook.claim span that claimed 1", deliver.Parent.SpanID())
		}
		// The dispatcher's polls that found nothing (every 20 ms here) made
		// no claim span, and no statement span of theirs stands alone.
		for _, c := range spansNamed(exp, "webhook.claim") {
			if attr(c, "traineed.webhook.claimed") == "0" && attr(c, "traineed.webhook.recorded") == "0" && attr(c, "traineed.webhook.released") == "0" {
				t.Errorf("a claim span of a cycle that did nothing: %v", c.Attributes)
			}
		}
		for _, sp := range exp.GetSpans() {
			if attr(sp, "db.system") != "" && !sp.Parent.IsValid() {
				t.Errorf("statement span %q is a root: a poll's statements are not traced", sp.Name)
			}
		}
		posts := spansNamed(exp, "POST")
		if len(posts) != 1 || posts[0].Parent.SpanID() != deliver.SpanContext.SpanID() ||
			attr(posts[0], "server.address") != "127.0.0.1" || attr(posts[0], "http.response.status_code") != "200" {
			t.Errorf("outbound POST spans: %+v", posts)
		}
	})
}

// spanNames lists exp's spans' names, for a failure's message.
func spanNames(exp *tracetest.InMemoryExporter) []string {
	var out []string
	for _, s := range exp.GetSpans() {
		out = append(out, s.Name)
	}
	return out
}

// TestTracingContinuesTheCallersTrace: a request with a W3C traceparent is
// served in the caller's trace, and its log line says so.
func TestTracingContinuesTheCallersTrace(t *testing.T) {
	s := storetest.SQLite(t)
	e, exp, _, logs := tracedEnv(t, s)
	const traceID, parentID = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	tr := e.create(e.keyA, newTraineeBody("Called Trainee"))
	r := doOn(t, e.srv.URL, "GET", "/public-api/trainees/"+strconv.FormatInt(tr.ID, 10), e.keyA, nil,
		http.Header{"Traceparent": {"00-" + traceID + "-" + parentID + "-01"}}).expect(t, 200)
	spans := spansNamed(exp, "GET /public-api/trainees/{id}")
	if len(spans) != 1 {
		t.Fatalf("server spans: %v", spanNames(exp))
	}
	if got := spans[0].SpanContext.TraceID().String(); got != traceID || spans[0].Parent.SpanID().String() != parentID {
		t.Errorf("server span in trace %s under %s, want %s under %s", got, spans[0].Parent.SpanID(), traceID, parentID)
	}
	if line := logs.waitRequestLine(t, r.Header.Get(api.HeaderRequestID)); line["trace_id"] != traceID {
		t.Errorf("access log trace_id %v, want %s", line["trace_id"], traceID)
	}
}

// TestTracingOffInstallsNothing is the "off and free" promise: without a
// tracer provider given, the handler and the store trace nothing (even
// with a global provider set, which traineed never reads), the access log
// has no trace fields, and the outbox's events carry no traceparent.
func TestTracingOffInstallsNothing(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		exp := tracetest.NewInMemoryExporter()
		global := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
		prev := otel.GetTracerProvider()
		otel.SetTracerProvider(global)
		t.Cleanup(func() { otel.SetTracerProvider(prev) })
		logs := &lockedBuffer{}
		e := newEnv(t, s, server.WithLogger(slog.New(slog.NewJSONHandler(logs, nil))))
		if e.handler.Tracing() || s.Tracing() {
			t.Fatalf("tracing on without a provider: handler %v, store %v", e.handler.Tracing(), s.Tracing())
		}
		rc := storetest.NewReceiver(t, storetest.OK)
		storetest.AddWebhook(t, s, e.companyA, rc.URL, api.EventTraineeCreated)
		tr := e.create(e.keyA, newTraineeBody("Untraced Trainee"))
		r := e.do("GET", "/public-api/trainees/"+strconv.FormatInt(tr.ID, 10), e.keyA, nil).expect(t, 200)
		if n := len(exp.GetSpans()); n != 0 {
			t.Errorf("%d spans with tracing off: %v", n, spanNames(exp))
		}
		line := logs.waitRequestLine(t, r.Header.Get(api.HeaderRequestID))
		if _, ok := line["trace_id"]; ok {
			t.Errorf("access log line has a trace_id with tracing off: %v", line)
		}
		if n := storetest.Count(t, s, "webhook_events", "traceparent IS NOT NULL"); n != 0 {
			t.Errorf("%d events with a traceparent with tracing off", n)
		}
	})
}
