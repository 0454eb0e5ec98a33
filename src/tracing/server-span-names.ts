import type { FastifyInstance } from 'fastify';
import { tracing } from './tracing.js';

/**
 * Names each incoming request's server span after its route template (`GET /webhooks/deliveries/:id/retry`) rather
 * than the method alone, and records `http.route`; a request that matched no route keeps the method. Installed only
 * with tracing on.
 */
export function nameServerSpans(fastify: FastifyInstance): void {
  const traces = tracing();
  fastify.addHook('onRequest', (request, _reply, done) => {
    const route = request.routeOptions.url;
    if (route !== undefined) traces.nameServerSpan(request.method, route);
    done();
  });
}
