import { createRequire } from 'node:module';
import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Span,
} from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import type { ActiveSpan, SpanAttributes, Tracing } from './tracing.js';

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
 * PostgreSQL is instrumented by the official instrumentation, which patches `pg` as it is loaded: so this runs
 * before the application's modules are imported, and loads `pg` itself through `require`, which the instrumentation
 * hooks (the application's `import` then finds the patched module in the cache). The server spans of incoming
 * requests (`startServerSpan`, from Fastify's hooks: src/tracing/request-spans.ts), the webhook delivery attempts
 * and the chain RPC calls (`inClientSpan`) are made by the service itself.
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
      // Without a parent: the pollers' and sweepers' queries would each make a trace of one span. Parameters are
      // left out: they carry addresses and key hashes. A pool checkout is a span per query that tells little (a wait
      // for a connection shows as the gap before the query) and adds to the garbage every span makes.
      new PgInstrumentation({
        requireParentSpan: true,
        enhancedDatabaseReporting: false,
        ignoreConnectSpans: true,
      }),
    ],
  });
  const require = createRequire(import.meta.url);
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
    startServerSpan: ({ method, route, path, headers }) => {
      const parent = propagation.extract(ROOT_CONTEXT, headers);
      const attributes: SpanAttributes = { 'http.request.method': method, 'url.path': path };
      if (route !== undefined) attributes['http.route'] = route;
      const span = tracer.startSpan(
        route === undefined ? method : `${method} ${route}`,
        { kind: SpanKind.SERVER, attributes },
        parent,
      );
      const active = trace.setSpan(parent, span);
      return {
        run: (next) => context.with(active, next),
        end: (statusCode) => {
          span.setAttribute('http.response.status_code', statusCode);
          if (statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
          span.end();
        },
      };
    },
    shutdown: () => provider.shutdown(),
  };
}
