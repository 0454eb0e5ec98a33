import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** What a caller's `x-request-id` may be: it is logged and echoed, so never arbitrary text. */
export const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Fastify's `genReqId`: the caller's `x-request-id` when it is a sane token, else a new UUID. */
export function requestId(request: IncomingMessage): string {
  const header = request.headers['x-request-id'];
  return typeof header === 'string' && REQUEST_ID.test(header) ? header : randomUUID();
}
