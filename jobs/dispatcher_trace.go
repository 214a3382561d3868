package jobs

// The dispatcher's spans (tracing on: Dispatcher.tracer set): a cycle's
// claim and each delivery's attempt, linked to the change that wrote its
// event.

import (
	"context"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/traineed/traineed/store"
)

// claimTrace is a cycle's webhook.claim span: begun with the cycle when
// it records or gives back attempts, else (a poll, a wake-up: most find
// nothing due) only once it has claimed, its statements untraced.
type claimTrace struct {
	tracer  trace.Tracer
	span    trace.Span // nil: not begun
	started time.Time
	attrs   trace.SpanStartOption
}

// startClaim begins a cycle's claim trace (nil, and nothing made, when
// tracing is off): free slots, attempts to record and to give back; a
// cycle with neither of those is quiet.
func (d *Dispatcher) startClaim(ctx context.Context, free, recorded, released int) (context.Context, *claimTrace) {
	if d.tracer == nil {
		return ctx, nil
	}
	ct := &claimTrace{tracer: d.tracer, attrs: trace.WithAttributes(attribute.Int("traineed.webhook.free_slots", max(free, 0)),
		attribute.Int("traineed.webhook.recorded", recorded), attribute.Int("traineed.webhook.released", released))}
	if recorded == 0 && released == 0 {
		ctx, ct.started = store.Untraced(ctx), time.Now()
	} else {
		ctx, ct.span = d.tracer.Start(ctx, "webhook.claim", ct.attrs)
	}
	return ctx, ct
}

// end ends the claim span (a quiet cycle's, begun at its start, only when
// it claimed) and returns its context, the deliveries' parent; empty when
// there is none (ct nil: tracing off).
func (ct *claimTrace) end(claimed int, err error) trace.SpanContext {
	if ct == nil {
		return trace.SpanContext{}
	}
	if ct.span == nil && claimed > 0 {
		_, ct.span = ct.tracer.Start(context.Background(), "webhook.claim", ct.attrs, trace.WithTimestamp(ct.started))
	}
	if ct.span == nil {
		return trace.SpanContext{}
	}
	ct.span.SetAttributes(attribute.Int("traineed.webhook.claimed", claimed))
	if err != nil {
		ct.span.SetStatus(codes.Error, "cycle failed")
	}
	ct.span.End()
	return ct.span.SpanContext()
}

// sendTraced is sender.send in a webhook.deliver span: a child of its
// claim's span, linked to the span that wrote the event (the change's
// trace, when it was traced).
func (d *Dispatcher) sendTraced(c *store.ClaimedDelivery, claim trace.SpanContext) store.DeliveryAttempt {
	opts := []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindProducer), trace.WithAttributes(
		attribute.Int64("traineed.webhook.delivery_id", c.DeliveryID), attribute.Int64("traineed.webhook.id", c.WebhookID),
		attribute.String("traineed.event.id", c.EventID), attribute.Int64("traineed.company_id", c.CompanyID),
		attribute.Int("traineed.webhook.attempt", c.Attempts+1))}
	if link := store.TraceLink(c.Traceparent); link.IsValid() {
		opts = append(opts, trace.WithLinks(trace.Link{SpanContext: link}))
	}
	ctx, span := d.tracer.Start(trace.ContextWithSpanContext(d.abort, claim), "webhook.deliver", opts...)
	defer span.End()
	res := d.sender.send(ctx, c)
	if res.StatusCode != 0 {
		span.SetAttributes(attribute.Int("http.response.status_code", res.StatusCode))
	}
	if !res.OK() {
		span.SetStatus(codes.Error, "attempt failed")
	}
	return res
}

// TracerName is the instrumentation scope of the background work's spans.
const TracerName = "github.com/traineed/traineed/jobs"
