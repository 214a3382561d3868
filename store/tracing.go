package store

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"unicode"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/uptrace/bun"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// Tracing (OpenTelemetry). A store traces nothing until SetTracerProvider
// is given a provider (cmd/traineed gives one only when the SDK's
// environment asks for an exporter): until then no query hook is
// installed (bun builds no query event without one) and the hot
// statements' one nil check is all it costs. Traced, every statement is a
// span: bun's through a query hook (its BEGIN and COMMIT included), the
// hot statements (run below bun) by runHot and queryHot. A statement's
// span says the database (db.system) and the operation (db.operation:
// SELECT, INSERT, ...), never the statement's text or its values: bun
// writes values into the text, and they are people's data. The outbox's
// write of a change's event is a span of its own, and the event row keeps
// that span's W3C traceparent, so that the dispatcher's delivery span
// links back to the change's trace.

// TracerName is the instrumentation scope of the store's spans.
const TracerName = "github.com/traineed/traineed/store"

// SetTracerProvider traces the store's statements and outbox writes with
// tp's tracer. Call it once, before the store is used; nil leaves tracing
// off.
func (s *Store) SetTracerProvider(tp trace.TracerProvider) {
	if tp == nil || s.tracer != nil {
		return
	}
	s.tracer = tp.Tracer(TracerName)
	s.db.AddQueryHook(&traceHook{s: s})
}

// Tracing reports whether the store makes spans (SetTracerProvider).
func (s *Store) Tracing() bool { return s.tracer != nil }

// untracedKey marks a context whose statements make no span (Untraced).
type untracedKey struct{}

// Untraced returns ctx with the store's statement spans turned off for
// whatever runs with it: the dispatcher's polls, which find nothing due
// most of the time, would otherwise make a trace a second.
func Untraced(ctx context.Context) context.Context {
	return context.WithValue(ctx, untracedKey{}, true)
}

// traced reports whether a statement run with ctx makes a span: tracing
// is on and ctx is not Untraced.
func (s *Store) traced(ctx context.Context) bool {
	return s.tracer != nil && ctx.Value(untracedKey{}) == nil
}

// dbSystem is the store's database as OpenTelemetry names it.
func (s *Store) dbSystem() string {
	if s.dialect == DialectPostgres {
		return "postgresql"
	}
	return "sqlite"
}

// stmtSpan starts the span of one statement of operation op (tracing on).
func (s *Store) stmtSpan(ctx context.Context, op string) (context.Context, trace.Span) {
	return s.tracer.Start(ctx, op, trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(attribute.String("db.system", s.dbSystem()), attribute.String("db.operation", op)))
}

// endStmtSpan ends a statement's span with its outcome: an error is
// marked by its kind (a PostgreSQL SQLSTATE), never its message, which
// can quote a value; no row is not an error.
func endStmtSpan(span trace.Span, err error) {
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) {
			span.SetAttributes(attribute.String("db.response.status_code", pgErr.Code))
		}
		span.SetStatus(codes.Error, "statement failed")
	}
	span.End()
}

// operation is the first word of a statement's text (SELECT, INSERT,
// WITH, ...), at most 16 bytes, as bun names its queries' operations.
func operation(text string) string {
	text = strings.TrimLeftFunc(text, unicode.IsSpace)
	if i := strings.IndexFunc(text, unicode.IsSpace); i > 0 {
		text = text[:i]
	}
	if len(text) > 16 {
		text = text[:16]
	}
	return strings.ToUpper(text)
}

// traceHook makes a span of every statement bun runs.
type traceHook struct{ s *Store }

func (h *traceHook) BeforeQuery(ctx context.Context, ev *bun.QueryEvent) context.Context {
	if !h.s.traced(ctx) {
		return ctx
	}
	ctx, span := h.s.stmtSpan(ctx, strings.ToUpper(ev.Operation()))
	return context.WithValue(ctx, stmtSpanKey{}, span)
}

func (h *traceHook) AfterQuery(ctx context.Context, ev *bun.QueryEvent) {
	if span, ok := ctx.Value(stmtSpanKey{}).(trace.Span); ok {
		endStmtSpan(span, ev.Err)
	}
}

// stmtSpanKey holds the span BeforeQuery started, for AfterQuery to end:
// that one and no other (the caller's span is in the context too).
type stmtSpanKey struct{}

// traceContext is the W3C Trace Context format of the outbox's
// traceparent column.
var traceContext = propagation.TraceContext{}

// traceparent is the W3C traceparent of ctx's span, or nil when it has
// none (tracing off).
func traceparent(ctx context.Context) *string {
	if !trace.SpanContextFromContext(ctx).IsValid() {
		return nil
	}
	c := propagation.MapCarrier{}
	traceContext.Inject(ctx, c)
	v, ok := c["traceparent"]
	if !ok {
		return nil
	}
	return &v
}

// TraceLink is the span context a stored traceparent names (invalid when
// it is nil or malformed): what a delivery's span links to.
func TraceLink(traceparent *string) trace.SpanContext {
	if traceparent == nil {
		return trace.SpanContext{}
	}
	ctx := traceContext.Extract(context.Background(), propagation.MapCarrier{"traceparent": *traceparent})
	return trace.SpanContextFromContext(ctx)
}

// outboxSpan starts the span of a change's outbox write (tracing on), of
// an event of type typ.
func (s *Store) outboxSpan(ctx context.Context, typ string, companyID int64) (context.Context, trace.Span) {
	return s.tracer.Start(ctx, "outbox.record", trace.WithAttributes(
		attribute.String("traineed.event.type", typ), attribute.Int64("traineed.company_id", companyID)))
}

// endOutboxSpan ends a change's outbox span with the deliveries its event
// scheduled.
func endOutboxSpan(span trace.Span, deliveries int, err error) {
	span.SetAttributes(attribute.Int("traineed.deliveries", deliveries))
	endStmtSpan(span, err)
}
