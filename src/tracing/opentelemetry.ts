import { createRequire } from 'node:module';
import { context, propagation, SpanKind, SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import type { ActiveSpan, Tracing } from './tracing.js';

/** What `startTracing` read from the environment. */
export interface OpenTelemetryOptions {
  readonly serviceName: string;
  readonly serviceVersion: string;
}

function activeSpan(span: Span): ActiveSpan {
  return {
    setAttributes: (attributes) => span.setAttributes(attributes),
    fail: (description) => span.setStatus({ code: SpanStatusCode.ERROR, message: description }),
  };
}

/**
 * The OpenTelemetry SDK, loaded only when tracing is on. Spans go through a batch processor to the OTLP/HTTP (JSON)
 * exporter, which reads the standard OTEL_EXPORTER_OTLP_* variables itself; the sampler follows OTEL_TRACES_SAMPLER
 * (parent-based, always on, by default), so an incoming `traceparent` that was not sampled stays unsampled here.
 *
 * Incoming HTTP (including the `traceparent` header) and PostgreSQL are instrumented by the official
 * instrumentations; they patch `http` and `pg` as those are loaded, so this runs before the application's modules
 * are imported, and loads `pg` itself through `require`, which the instrumentation hooks (the application's `import`
 * then finds the patched module in the cache). Outgoing requests are not auto-instrumented: the webhook deliveries
 * and chain RPC calls make one span per attempt or call of their own (`Tracing.inClientSpan`).
 */
export function startOpenTelemetry({ serviceName, serviceVersion }: OpenTelemetryOptions): Tracing {
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': serviceName, 'service.version': serviceVersion }),
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())],
  });
  provider.register();
  registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [
      new HttpInstrumentation({ disableOutgoingRequestInstrumentation: true }),
      // Without a parent: the pollers' and sweepers' queries would each make a trace of one span. Parameters are
      // left out: they carry addresses and key hashes.
      new PgInstrumentation({ requireParentSpan: true, enhancedDatabaseReporting: false }),
    ],
  });
  const require = createRequire(import.meta.url);
  require('node:http');
  require('pg');

  const tracer = trace.getTracer('tollgate', serviceVersion);
  return {
    enabled: true,
    inClientSpan: (name, attributes, work) =>
      tracer.startActiveSpan(name, { kind: SpanKind.CLIENT, attributes }, async (span) => {
        try {
          return await work(activeSpan(span));
        } catch (error) {
          span.recordException(error instanceof Error ? error : String(error));
          span.setStatus({ code: SpanStatusCode.ERROR });
          throw error;
        } finally {
          span.end();
        }
      }),
    propagationHeaders: () => {
      const headers: Record<string, string> = {};
      propagation.inject(context.active(), headers);
      return headers;
    },
    logFields: (): Record<string, string> => {
      const span = trace.getActiveSpan();
      if (span === undefined) return {};
      const { traceId, spanId } = span.spanContext();
      return { traceId, spanId };
    },
    nameServerSpan: (method, route) => {
      const span = trace.getActiveSpan();
      if (span === undefined) return;
      span.updateName(`${method} ${route}`);
      span.setAttribute('http.route', route);
    },
    shutdown: () => provider.shutdown(),
  };
}
