package server

import (
	"context"
	"log/slog"
	"net/http"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// Tracing (OpenTelemetry). The server takes a trace.TracerProvider from
// its wiring (WithTracerProvider; cmd/traineed makes one only when the
// SDK's environment asks for an exporter): without one nothing is
// installed, no span is started and the request's path is the same as
// without tracing, one nil check aside. With one, each request is a server
// span named by its method and route pattern (never the raw path or
// query), continuing the caller's W3C traceparent when it sends one; the
// password hashes are spans of their own, and the access log line and the
// error lines carry trace_id and span_id beside request_id.

// TracerName is the instrumentation scope of every span of traineed.
const TracerName = "github.com/traineed/traineed"

// WithTracerProvider traces requests with tp's tracer; nil (the default)
// traces nothing.
func WithTracerProvider(tp trace.TracerProvider) Option {
	return func(x *Handler) {
		if tp != nil {
			x.tracer = tp.Tracer(TracerName)
		}
	}
}

// Tracing reports whether the handler starts spans (a tracer provider was
// given).
func (h *Handler) Tracing() bool { return h.tracer != nil }

// traceContext is the W3C Trace Context propagator: a caller's traceparent
// continues its trace.
var traceContext = propagation.TraceContext{}

// startSpan starts r's server span (tracing on only), continuing the
// caller's trace when it sent a traceparent. Its name is the method until
// the route is known (finishSpan).
func (h *Handler) startSpan(r *http.Request) (*http.Request, trace.Span) {
	ctx := r.Context()
	if r.Header.Get("traceparent") != "" {
		ctx = traceContext.Extract(ctx, propagation.HeaderCarrier(r.Header))
	}
	ctx, span := h.tracer.Start(ctx, r.Method, trace.WithSpanKind(trace.SpanKindServer),
		trace.WithAttributes(attribute.String("http.request.method", r.Method)))
	return r.WithContext(ctx), span
}

// finishSpan names span after the route that served the request and
// records its outcome.
func finishSpan(span trace.Span, method string, rec *recorder, status int, requestID string) {
	if rec.pattern != "" {
		// A pattern is "METHOD /path/{id}" or, for any method, "/path".
		route := rec.pattern
		if i := strings.IndexByte(route, ' '); i >= 0 {
			route = route[i+1:]
		}
		span.SetName(method + " " + route)
		span.SetAttributes(attribute.String("http.route", route))
	}
	span.SetAttributes(attribute.Int("http.response.status_code", status), attribute.String("traineed.request_id", requestID))
	if rec.companyID != 0 {
		span.SetAttributes(attribute.Int64("traineed.company_id", rec.companyID))
	}
	if status >= 500 {
		span.SetStatus(codes.Error, http.StatusText(status))
	}
	span.End()
}

// traceAttrs are the trace_id and span_id of ctx's span, for a log line:
// none when ctx has no span (tracing off).
func traceAttrs(ctx context.Context) []slog.Attr {
	sc := trace.SpanContextFromContext(ctx)
	if !sc.IsValid() {
		return nil
	}
	return []slog.Attr{slog.String("trace_id", sc.TraceID().String()), slog.String("span_id", sc.SpanID().String())}
}

// logArgs is args with ctx's trace_id and span_id appended, for the error
// lines logged with a request's context.
func logArgs(ctx context.Context, args ...any) []any {
	for _, a := range traceAttrs(ctx) {
		args = append(args, a)
	}
	return args
}
