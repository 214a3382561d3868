-- The W3C traceparent of the span that wrote a webhook event (OpenTelemetry
-- tracing on; NULL otherwise): the dispatcher's delivery spans link to the
-- change's trace through it. Expand-only: nullable, no default, nothing
-- the previous release reads or writes.
ALTER TABLE webhook_events ADD COLUMN traceparent TEXT;
