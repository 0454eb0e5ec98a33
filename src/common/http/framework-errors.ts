import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { HttpStatus } from '@nestjs/common';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../errors/api-error.js';
import { toErrorResponse, withRequestId, type ErrorBody } from './error-response.js';
import { API_SECURITY_HEADERS } from './security-headers.js';

const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * Fastify's `frameworkErrors`: the router's own refusals (a malformed URL, an over-long path parameter), answered
 * before any hook or Nest filter runs. They get the same headers and error object, request id included, as every
 * other answer.
 */
export function answerFrameworkError(
  error: FastifyError,
  request: FastifyRequest,
  reply: FastifyReply,
): void {
  const { status, body } = toErrorResponse(error);
  void reply
    .code(status)
    .headers(API_SECURITY_HEADERS)
    .header('x-request-id', request.id)
    .header('content-type', JSON_TYPE)
    .send(withRequestId(body, request.id));
}

/** What Node's HTTP server refuses before a request object exists (connection-limits.ts, `answerClientError`). */
export const REQUEST_TIMEOUT: ErrorResponseParts = {
  status: 408,
  body: { error: 'The request was not received in time', details: { code: 'request_timeout' } },
};
export const CLIENT_ERRORS: Record<string, ErrorResponseParts> = {
  ERR_HTTP_REQUEST_TIMEOUT: REQUEST_TIMEOUT,
  HPE_HEADER_OVERFLOW: {
    status: 431,
    body: { error: 'Request headers are too large', details: { code: 'headers_too_large' } },
  },
};
export const MALFORMED: ErrorResponseParts = {
  status: 400,
  body: { error: 'Malformed HTTP request', details: { code: 'bad_request' } },
};

export interface ErrorResponseParts {
  status: number;
  body: ErrorBody;
}

/**
 * The refusals of the app's first request hook (app.ts), answered before authentication, routing or the body:
 * transport matters every route shares, listed with the connection limits in SECURITY.md rather than per operation.
 */
export const TransportErrors = {
  shuttingDown: () =>
    new ApiError(
      HttpStatus.SERVICE_UNAVAILABLE,
      'shutting_down',
      'This instance is shutting down: send the request again on a new connection',
      {},
      { retryable: true },
    ),
  missingHost: () => ApiError.badRequest('missing_host', 'An HTTP/1.1 request must carry a Host header'),
  invalidHost: () =>
    ApiError.badRequest('invalid_host', 'A request must carry one Host header, and it must not be empty'),
  invalidPreflight: () =>
    ApiError.badRequest(
      'invalid_preflight',
      'A CORS preflight (OPTIONS) must carry Origin and Access-Control-Request-Method',
    ),
};

/**
 * Writes the error object as a complete HTTP answer straight to the socket and closes it, as Node does with its own
 * bare answers. `requestId` is the refused request's, when it got as far as having one.
 */
export function writeErrorAndClose(
  socket: Socket,
  { status, body }: ErrorResponseParts,
  requestId: string = randomUUID(),
  error?: Error,
): void {
  if (socket.writable) {
    const json = JSON.stringify(withRequestId(body, requestId));
    const headers = {
      ...API_SECURITY_HEADERS,
      'x-request-id': requestId,
      'content-type': JSON_TYPE,
      'content-length': String(Buffer.byteLength(json)),
      connection: 'close',
    };
    const head = Object.entries(headers)
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('');
    socket.write(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n${head}\r\n${json}`);
  }
  socket.destroy(error);
}
