import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
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

const CLIENT_ERRORS: Record<string, { status: number; body: ErrorBody }> = {
  ERR_HTTP_REQUEST_TIMEOUT: {
    status: 408,
    body: { error: 'The request was not received in time', details: { code: 'request_timeout' } },
  },
  HPE_HEADER_OVERFLOW: {
    status: 431,
    body: { error: 'Request headers are too large', details: { code: 'headers_too_large' } },
  },
};
const MALFORMED = {
  status: 400,
  body: { error: 'Malformed HTTP request', details: { code: 'bad_request' } },
};

/**
 * Fastify's `clientErrorHandler`: a request Node's HTTP parser refused (bad bytes in the request line or headers,
 * headers too large), so no request object exists. Answered with the error object and a new request id, as
 * Node would, then the connection is closed.
 */
export function answerClientError(error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  if (socket.writable) {
    const { status, body } = CLIENT_ERRORS[error.code ?? ''] ?? MALFORMED;
    const requestId = randomUUID();
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
