import type { IncomingMessage, Server, ServerOptions, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { CLIENT_ERRORS, MALFORMED, REQUEST_TIMEOUT, writeErrorAndClose } from './framework-errors.js';

/** The connection settings (HTTP_*_TIMEOUT_MS), in milliseconds. */
export interface ConnectionLimits {
  /** A whole request, headers and body. */
  requestTimeoutMs: number;
  headersTimeoutMs: number;
  /** Silence while a request is being received. */
  idleTimeoutMs: number;
  keepAliveTimeoutMs: number;
}

/** Fastify's server options that enforce the limits. */
export function connectionOptions(limits: ConnectionLimits): {
  requestTimeout: number;
  connectionTimeout: number;
  keepAliveTimeout: number;
  http: ServerOptions;
} {
  return {
    // Node answers past it through clientErrorHandler (framework-errors.ts): 408 with the error object.
    requestTimeout: limits.requestTimeoutMs,
    // The socket's idle timeout while a request is under way; answered by `answerStalledRequests`.
    connectionTimeout: limits.idleTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    http: {
      headersTimeout: limits.headersTimeoutMs,
      // Node's own default (5 min) would refuse a headers timeout above it before Fastify sets the real one.
      requestTimeout: limits.requestTimeoutMs,
      // Node checks both deadlines on this interval, 30 s by default: a 30 s limit would hold for up to 60 s.
      connectionsCheckingInterval: Math.max(
        50,
        Math.min(1000, Math.floor(Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs) / 4)),
      ),
      // Answered by the app's request hook with the error object instead of Node's bare 400 (app.ts).
      requireHostHeader: false,
    },
  };
}

interface Exchange {
  request: IncomingMessage;
  response: ServerResponse;
  requestId: string;
}

/** The request each socket is serving or served last; kept only while the socket lives. */
const exchanges = new WeakMap<Socket, Exchange>();

/** Remembers the exchange under way on its socket (from the first request hook: the body may still be coming). */
export function trackExchange(request: IncomingMessage, response: ServerResponse, requestId: string): void {
  exchanges.set(request.socket, { request, response, requestId });
}

/** The request on this socket was answered before its body arrived (a refusal in a hook): nothing more may be written. */
function answeredWhileReceiving(socket: Socket): boolean {
  const exchange = exchanges.get(socket);
  return exchange !== undefined && !exchange.request.complete && exchange.response.headersSent;
}

/**
 * The server's `timeout` listener (the socket was silent for HTTP_IDLE_TIMEOUT_MS). A body that stalls is answered
 * 408 with the error object; a handler still at work is left to its own timeouts (database, chain); anything else
 * (silence before the headers, a client that does not read its answer) is cut. Node would cut every one of them,
 * the stalled body without an answer.
 */
export function answerStalledRequests(server: Server): void {
  server.on('timeout', (socket: Socket) => {
    const exchange = exchanges.get(socket);
    if (exchange && !exchange.request.complete && !exchange.response.headersSent) {
      writeErrorAndClose(socket, REQUEST_TIMEOUT, exchange.requestId);
      return;
    }
    if (exchange && exchange.request.complete && !exchange.response.headersSent) return;
    socket.destroy();
  });
}

/**
 * Fastify's `clientErrorHandler`: a request Node's HTTP server refused (bad bytes in the request line or headers,
 * headers too large, not received within HTTP_HEADERS_TIMEOUT_MS or HTTP_REQUEST_TIMEOUT_MS), so no request
 * object exists (or, for a body that did not arrive in time, the request's handler still waits for it). Answered with
 * the error object, as Node would answer, then the connection is closed.
 */
export function answerClientError(error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  if (answeredWhileReceiving(socket)) {
    socket.destroy(error);
    return;
  }
  const exchange = exchanges.get(socket);
  // A body that did not arrive in time belongs to a request that has its id; anything else gets a new one.
  const requestId = exchange && !exchange.request.complete ? exchange.requestId : undefined;
  writeErrorAndClose(socket, CLIENT_ERRORS[error.code ?? ''] ?? MALFORMED, requestId, error);
}
