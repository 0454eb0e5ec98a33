import http from 'node:http';
import https from 'node:https';
import { performance } from 'node:perf_hooks';
import { ApiError } from '../../common/errors/api-error.js';
import {
  PinnedHttpAgent,
  PinnedHttpsAgent,
  PinnedRequestOptions,
  pinnedRequestOptions,
} from './pinned-agent.js';
import { parseRetryAfter } from './retry-after.js';
import { CheckedWebhookUrl, WebhookUrlGuard, socketHost } from './webhook-url.guard.js';

/** What one delivery attempt came to; never thrown, always returned, so the caller can record it. */
export interface DeliveryOutcome {
  /** 2xx only. */
  success: boolean;
  /** Null when no response arrived (refused URL, connection error, timeout). */
  statusCode: number | null;
  durationMs: number;
  /** `<kind>: <detail>`, e.g. `http_status: 500`, `timeout: ...`, `webhook_url_forbidden: private`. */
  error: string | null;
  /** From a `Retry-After` header in either form; the scheduler decides whether to honour it. */
  retryAfterSeconds: number | null;
  /**
   * The start of the response body (see `maxResponseBytes`). Null when no response arrived, and when the receiver
   * was reached at a non-public address (WEBHOOK_ALLOW_PRIVATE): the delivery log is readable by the integrator,
   * and must not become a way to read internal services.
   */
  responseBody: string | null;
}

export interface GuardedHttpClientOptions {
  /** Budget for the whole attempt: checking the URL, connecting and receiving the response head. */
  timeoutMs?: number;
  /** How much of the response body is read and kept; the connection is dropped once it is exceeded. */
  maxResponseBytes?: number;
  /** Connection pools to use instead of the client's own keep-alive agents. */
  agents?: { http?: PinnedHttpAgent; https?: PinnedHttpsAgent };
}

export const WEBHOOK_USER_AGENT = 'Tollgate-Webhooks/1.0';
const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_MAX_RESPONSE_BYTES = 1024;

const AGENT_OPTIONS: http.AgentOptions = {
  keepAlive: true,
  maxSockets: 64,
  maxFreeSockets: 16,
  scheduling: 'lifo',
  // Idle sockets go before the 5 s keep-alive timeout common on receivers (Node's default among them),
  // so a request rarely lands on a connection the other side is just closing.
  timeout: 4_000,
};

type Attempt = { outcome: Omit<DeliveryOutcome, 'durationMs'>; staleSocket?: boolean };

function failure(error: string): Omit<DeliveryOutcome, 'durationMs'> {
  return { success: false, statusCode: null, error, retryAfterSeconds: null, responseBody: null };
}

function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

function refusal(error: unknown): string {
  if (error instanceof ApiError) {
    const reason = error.details.reason;
    return `${error.code}: ${typeof reason === 'string' ? reason : error.message}`;
  }
  return `webhook_url_check_failed: ${error instanceof Error ? error.message : String(error)}`;
}

/**
 * Sends webhook requests to integrator URLs without letting them reach the service's own network: every
 * send re-checks the URL and connects only to the addresses that check approved; redirects are never
 * followed.
 */
export class GuardedHttpClient {
  private readonly timeoutMs: number;
  private readonly maxResponseBytes: number;
  private readonly httpAgent: PinnedHttpAgent;
  private readonly httpsAgent: PinnedHttpsAgent;

  constructor(
    private readonly guard: WebhookUrlGuard,
    options: GuardedHttpClientOptions = {},
  ) {
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
    this.httpAgent = options.agents?.http ?? new PinnedHttpAgent(AGENT_OPTIONS);
    this.httpsAgent = options.agents?.https ?? new PinnedHttpsAgent(AGENT_OPTIONS);
  }

  async post(url: string, body: string, headers: Record<string, string>): Promise<DeliveryOutcome> {
    const started = performance.now();
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), this.timeoutMs);
    const done = (outcome: Omit<DeliveryOutcome, 'durationMs'>): DeliveryOutcome => ({
      ...outcome,
      durationMs: Math.round(performance.now() - started),
    });
    try {
      let target: CheckedWebhookUrl;
      try {
        target = await untilAborted(this.guard.check(url), controller.signal);
      } catch (error) {
        return done(failure(controller.signal.aborted ? this.timeoutMessage() : refusal(error)));
      }
      let attempt = await this.send(target, body, headers, controller.signal);
      // A kept-alive connection the receiver closed while idle almost always fails before the request
      // reached it; trying once more spares a delayed retry, and webhook-id lets a receiver drop a duplicate.
      if (attempt.staleSocket && !controller.signal.aborted) {
        attempt = await this.send(target, body, headers, controller.signal);
      }
      return done(attempt.outcome);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Closes pooled connections; call on shutdown. */
  close(): void {
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
  }

  private timeoutMessage(): string {
    return `timeout: no response within ${this.timeoutMs} ms`;
  }

  private send(
    { url, addresses, public: keepBody }: CheckedWebhookUrl,
    body: string,
    headers: Record<string, string>,
    signal: AbortSignal,
  ): Promise<Attempt> {
    return new Promise((resolve) => {
      let settled = false;
      const settle = (attempt: Attempt): void => {
        if (settled) return;
        settled = true;
        resolve(attempt);
      };

      const secure = url.protocol === 'https:';
      let request: http.ClientRequest;
      try {
        // Connect only to what the check approved, so nothing resolved later can redirect the socket.
        const options: http.RequestOptions & PinnedRequestOptions = {
          ...pinnedRequestOptions(addresses),
          protocol: url.protocol,
          // The hostname, not an address, so that Host and TLS SNI/certificate checks name the integrator.
          host: socketHost(url),
          port: url.port === '' ? undefined : Number(url.port),
          path: `${url.pathname}${url.search}`,
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'user-agent': WEBHOOK_USER_AGENT,
            ...headers,
            'content-length': String(Buffer.byteLength(body)),
          },
          agent: secure ? this.httpsAgent : this.httpAgent,
          signal,
        };
        request = (secure ? https : http).request(options);
      } catch (error) {
        settle({ outcome: failure(`request_error: ${(error as Error).message}`) });
        return;
      }

      let responded = false;
      request.once('response', (response) => {
        responded = true;
        const chunks: Buffer[] = [];
        let size = 0;
        const finish = (): void =>
          settle({ outcome: this.responseOutcome(response, keepBody ? Buffer.concat(chunks) : null) });
        response.on('data', (chunk: Buffer) => {
          if (size + chunk.length > this.maxResponseBytes) {
            if (keepBody) chunks.push(chunk.subarray(0, this.maxResponseBytes - size));
            size = this.maxResponseBytes;
            finish();
            response.destroy();
            return;
          }
          if (keepBody) chunks.push(chunk);
          size += chunk.length;
        });
        response.once('end', finish);
        // Also reached when the deadline cuts the body short: the status code already answered the question.
        response.once('close', finish);
        response.on('error', () => undefined);
      });

      request.on('error', (error: NodeJS.ErrnoException) => {
        if (responded) return;
        if (signal.aborted) {
          settle({ outcome: failure(this.timeoutMessage()) });
          return;
        }
        const staleSocket = request.reusedSocket && (error.code === 'ECONNRESET' || error.code === 'EPIPE');
        settle({ outcome: failure(`connection_error: ${error.code ?? error.message}`), staleSocket });
      });

      request.end(body);
    });
  }

  private responseOutcome(response: http.IncomingMessage, body: Buffer | null): Attempt['outcome'] {
    const statusCode = response.statusCode ?? 0;
    const success = statusCode >= 200 && statusCode < 300;
    let error: string | null = null;
    if (!success) {
      error =
        statusCode >= 300 && statusCode < 400
          ? `http_status: ${statusCode} (redirects are not followed)`
          : `http_status: ${statusCode}`;
    }
    return {
      success,
      statusCode,
      error,
      retryAfterSeconds: parseRetryAfter(response.headers['retry-after']),
      // PostgreSQL text cannot hold NUL; invalid UTF-8 already decodes to U+FFFD.
      responseBody: body === null ? null : body.toString('utf8').replaceAll('\u0000', '\uFFFD'),
    };
  }
}
