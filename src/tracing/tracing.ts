/**
 * The service's own view of tracing: what the code that makes spans (webhook attempts, chain RPC calls, the server
 * span's route name) and the logger need. It imports no OpenTelemetry module: until `startTracing` installs the
 * OpenTelemetry-backed implementation (OTEL_EXPORTER_OTLP_ENDPOINT set), every call is a no-op and the callers
 * check `enabled` where even that would cost on the request path.
 */

export type SpanAttributes = Record<string, string | number | boolean>;

export interface IncomingRequest {
  readonly method: string;
  /** The route template, when one matched. */
  readonly route: string | undefined;
  /** The path without the query string (which may carry addresses and cursors). */
  readonly path: string;
  readonly headers: Record<string, string | string[] | undefined>;
}

/** The server span of one incoming request. */
export interface ServerSpan {
  /** Calls `next` (the rest of the request's handling) with this span active. */
  run(next: () => void): void;
  end(statusCode: number): void;
}

/** A span being recorded, as `inClientSpan`'s work sees it. */
export interface ActiveSpan {
  setAttributes(attributes: SpanAttributes): void;
  /** Marks the span failed, with a short description (no payloads, no credentials). */
  fail(description: string): void;
}

export interface Tracing {
  readonly enabled: boolean;
  /**
   * Runs `work` in a client span (a call leaving the process) that ends when it settles; a thrown error marks the
   * span failed and is rethrown.
   */
  inClientSpan<T>(
    name: string,
    attributes: SpanAttributes,
    work: (span: ActiveSpan) => Promise<T>,
  ): Promise<T>;
  /** The W3C `traceparent` (and `tracestate`) of the active span, for a request leaving the process. */
  propagationHeaders(): Record<string, string>;
  /** `{ traceId, spanId }` of the active span, for a log line; empty outside a span. */
  logFields(): Record<string, string>;
  /**
   * The server span of an incoming request, continuing the caller's trace when its headers carry a `traceparent`;
   * named after the route template (`GET /subscriptions/status`), the method alone when no route matched.
   */
  startServerSpan(request: IncomingRequest): ServerSpan;
  /** Sends the spans still buffered; the last step of a shutdown. */
  shutdown(): Promise<void>;
}

const NO_SPAN: ActiveSpan = { setAttributes: () => undefined, fail: () => undefined };
const NO_FIELDS: Record<string, string> = Object.freeze({});
const NO_SERVER_SPAN: ServerSpan = { run: (next) => next(), end: () => undefined };

const NO_TRACING: Tracing = {
  enabled: false,
  inClientSpan: (_name, _attributes, work) => work(NO_SPAN),
  propagationHeaders: () => NO_FIELDS,
  logFields: () => NO_FIELDS,
  startServerSpan: () => NO_SERVER_SPAN,
  shutdown: () => Promise.resolve(),
};

let current: Tracing = NO_TRACING;

/** The process's tracing: the no-op one unless tracing was started. */
export function tracing(): Tracing {
  return current;
}

/** Installed once at start by `startTracing`, before the application's modules are loaded. */
export function installTracing(implementation: Tracing): void {
  current = implementation;
}
