package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// OpenTelemetry tracing of `traineed serve`, configured only by the SDK's
// standard environment variables. It is on when an OTLP endpoint is named
// (OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT),
// unless OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none. Off, nothing
// of the SDK is made: no provider, no exporter, no span processor, and
// the server, store, dispatcher, evaluator and outbound client are given
// no tracer (each then installs nothing). On, spans go by OTLP over HTTP
// (protobuf) through a batch span processor; the exporter reads the rest
// of OTEL_EXPORTER_OTLP_* (headers, timeout, compression; see otlpHTTP),
// the provider OTEL_TRACES_SAMPLER and OTEL_BSP_*, and the resource
// OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES (service.name defaults to
// "traineed").

// defaultServiceName is service.name when OTEL_SERVICE_NAME does not say.
const defaultServiceName = "traineed"

// tracingEnabled reports whether getenv's environment asks for traces.
func tracingEnabled(getenv func(string) string) bool {
	if strings.EqualFold(strings.TrimSpace(getenv("OTEL_SDK_DISABLED")), "true") {
		return false
	}
	if strings.EqualFold(strings.TrimSpace(getenv("OTEL_TRACES_EXPORTER")), "none") {
		return false
	}
	return getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != ""
}

// startTracing returns the tracer provider of getenv's environment, or
// nil when it does not ask for traces; stop flushes and shuts it down.
// An exporter or protocol other than OTLP over HTTP is a usage error.
func startTracing(ctx context.Context, getenv func(string) string, log *slog.Logger) (tp trace.TracerProvider, stop func(), err error) {
	stop = func() {}
	if !tracingEnabled(getenv) {
		return nil, stop, nil
	}
	if e := strings.TrimSpace(getenv("OTEL_TRACES_EXPORTER")); e != "" && e != "otlp" {
		return nil, stop, usageError{fmt.Errorf("OTEL_TRACES_EXPORTER=%s: traineed exports traces by OTLP only (otlp, or none)", e)}
	}
	for _, name := range []string{"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL"} {
		if p := strings.TrimSpace(getenv(name)); p != "" {
			if p != "http/protobuf" {
				return nil, stop, usageError{fmt.Errorf("%s=%s: traineed exports OTLP over HTTP only (http/protobuf)", name, p)}
			}
			break
		}
	}
	client, err := newOTLPHTTP(getenv) // reads OTEL_EXPORTER_OTLP_*
	if err != nil {
		return nil, stop, usageError{fmt.Errorf("tracing: %w", err)}
	}
	exp, err := otlptrace.New(ctx, client)
	if err != nil {
		return nil, stop, fmt.Errorf("tracing: %w", err)
	}
	res, err := resource.New(ctx,
		resource.WithAttributes(attribute.String("service.name", defaultServiceName)),
		resource.WithFromEnv(), // OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES: over the default
		resource.WithTelemetrySDK())
	if err != nil && !errors.Is(err, resource.ErrPartialResource) {
		return nil, stop, fmt.Errorf("tracing: resource: %w", err)
	}
	provider := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
	// Export failures are logged (at most as often as the batches go),
	// not printed by the SDK's own logger.
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) { log.Warn("tracing", "error", err) }))
	service := defaultServiceName
	for _, kv := range res.Attributes() {
		if kv.Key == "service.name" {
			service = kv.Value.AsString()
		}
	}
	log.Info("tracing on", "exporter", "otlp/http", "service", service)
	stop = func() {
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := provider.Shutdown(sctx); err != nil {
			log.Warn("tracing: flushing the last spans", "error", err)
		}
	}
	return provider, stop, nil
}
