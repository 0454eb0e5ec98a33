import type { FastifyInstance, FastifyRequest } from 'fastify';
import { tracing, type ServerSpan } from './tracing.js';

/**
 * A server span for every request Fastify routes (a 404 included), installed only with tracing on and before any
 * other hook, so that the request's own hooks, its handler, its queries and its log line all run inside it. Made
 * here rather than by OpenTelemetry's http instrumentation, which cost about half of a cached read's throughput in
 * a side-by-side measurement (docs/performance.md, "Tracing").
 */
export function traceRequests(fastify: FastifyInstance): void {
  const traces = tracing();
  const spans = new WeakMap<FastifyRequest, ServerSpan>();
  fastify.addHook('onRequest', (request, _reply, done) => {
    const query = request.url.indexOf('?');
    const span = traces.startServerSpan({
      method: request.method,
      route: request.routeOptions.url,
      path: query === -1 ? request.url : request.url.slice(0, query),
      headers: request.headers,
    });
    spans.set(request, span);
    span.run(done);
  });
  fastify.addHook('onResponse', (request, reply, done) => {
    spans.get(request)?.end(reply.statusCode);
    done();
  });
  fastify.addHook('onRequestAbort', (request, done) => {
    // The client went away before the answer: 499, as proxies record it.
    spans.get(request)?.end(499);
    done();
  });
}
