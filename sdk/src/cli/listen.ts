/// <reference types="node" />
import { chmodSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TollgateClient } from '../client.js';
import { isTollgateError, unwrap } from '../errors.js';
import type { components } from '../schema.js';
import { verifyWebhook, WebhookVerificationError } from '../webhooks.js';
import { UsageError } from './settings.js';

type EventType = NonNullable<components['schemas']['SaveWebhookDto']['events']>[number];
type SavedWebhook = components['schemas']['SavedWebhookDto'];

export interface ListenOptions {
  /** Where verified deliveries go: an http or https URL. */
  forwardTo: string;
  /** Where to write the webhook's signing secret (mode 600); the log only shows its start. */
  secretFile?: string | undefined;
  events: EventType[] | undefined;
  /** Port of the local receiver on 127.0.0.1; 0 takes any free one. */
  port: number;
  print: (line: string) => void;
  log: (line: string) => void;
}

/** Headers that describe one connection, not the delivery: never copied to the forwarded request. */
const HOP_BY_HOP = new Set([
  'host',
  'connection',
  'content-length',
  'transfer-encoding',
  'keep-alive',
  'upgrade',
]);
const FORWARD_TIMEOUT_MS = 10_000;

function readBody(request: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

function forwardedHeaders(request: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined || HOP_BY_HOP.has(name)) continue;
    headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  return headers;
}

function answer(response: ServerResponse, status: number, text: string): void {
  response.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' }).end(text);
}

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * The endpoint to forward to: an http(s) URL, nothing else (no file:, data: or other schemes fetch might take). A
 * host other than this machine is allowed (a tunnel, a container) but named, since deliveries then leave it.
 */
export function forwardTarget(text: string, log: (line: string) => void): URL {
  let target: URL;
  try {
    target = new URL(text);
  } catch {
    throw new UsageError(`--forward-to must be an http or https URL, such as http://localhost:4000/webhooks`);
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') {
    throw new UsageError(`--forward-to must be an http or https URL, not ${target.protocol}`);
  }
  if (target.username !== '' || target.password !== '') {
    throw new UsageError('--forward-to must not carry a user name or password');
  }
  if (!LOOPBACK_HOSTS.has(target.hostname) && !/^127(\.\d{1,3}){3}$/.test(target.hostname)) {
    log(`warning: ${target.host} is not this machine: signed deliveries will leave it, to ${target.origin}`);
  }
  return target;
}

/** `whsec_` and the first characters of the key: enough to tell two secrets apart, not enough to sign. */
export function maskSecret(secret: string): string {
  const prefix = 'whsec_';
  const key = secret.startsWith(prefix) ? secret.slice(prefix.length) : secret;
  return `${prefix}${key.slice(0, 4)}… (hidden)`;
}

/** What ends a `listen`: Ctrl-C, a process manager's stop, the terminal closing. */
export const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

function listenOn(server: Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
  });
}

/**
 * `tollgate listen --forward-to <url>`: a receiver on loopback, registered as a webhook of the signed-in wallet.
 * Each delivery's signature is checked with the secret the registration returned; a valid one is forwarded, raw
 * body and headers unchanged, to the developer's endpoint, whose status is the answer the service gets (so its
 * retries behave as they would in production). One line per delivery on stdout. Ctrl-C deletes the webhook.
 */
export async function listen(client: TollgateClient, options: ListenOptions): Promise<void> {
  const forwardTo = forwardTarget(options.forwardTo, options.log).href;
  // Known once the registration answers; the server must listen first, to have a URL to register.
  let saved: SavedWebhook | undefined;
  const server = createServer((request, response) => {
    void (async () => {
      const body = await readBody(request);
      const time = new Date().toISOString();
      if (request.method !== 'POST') return answer(response, 405, 'POST only');
      // A delivery that raced the registration's answer is retried by the service.
      const secret = saved?.secret;
      if (secret === undefined) return answer(response, 503, 'not ready');
      let event;
      try {
        event = await verifyWebhook(secret, request.headers, body);
      } catch (error) {
        const code = error instanceof WebhookVerificationError ? error.code : 'invalid';
        options.print(`${time}  -  ${String(request.headers['webhook-id'] ?? '-')}  refused: ${code}`);
        return answer(response, 400, `signature check failed: ${code}`);
      }
      let outcome: string;
      try {
        const forwarded = await fetch(forwardTo, {
          method: 'POST',
          headers: forwardedHeaders(request),
          body: new Uint8Array(body),
          signal: AbortSignal.timeout(FORWARD_TIMEOUT_MS),
          redirect: 'manual',
        });
        const text = await forwarded.text();
        outcome = String(forwarded.status);
        response.writeHead(forwarded.status, { 'content-type': 'text/plain; charset=utf-8' }).end(text);
      } catch (error) {
        const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message;
        outcome = `failed (${cause})`;
        answer(response, 502, `could not forward to ${forwardTo}: ${cause}`);
      }
      options.print(`${time}  ${event.type}  ${event.id}  -> ${outcome}`);
    })().catch((error: unknown) => {
      if (!response.headersSent) answer(response, 500, String(error));
    });
  });

  const port = await listenOn(server, options.port);
  const url = `http://127.0.0.1:${port}/`;
  options.log(`registering the receiver ${url} as a webhook…`);
  // Caught from before the registration: a Ctrl-C (or a closed terminal) while it is under way still deletes the
  // webhook it makes, instead of killing the process and leaving the webhook behind.
  let stopping = false;
  let requestStop!: () => void;
  const stopRequested = new Promise<void>((resolve) => (requestStop = resolve));
  const onSignal = (): void => {
    // A second one quits at once: whoever presses Ctrl-C twice does not want to wait for the service.
    if (stopping) return process.exit(130);
    stopping = true;
    if (saved === undefined)
      options.log('stopping once the webhook is registered, to delete it (Ctrl-C again to quit now)');
    requestStop();
  };
  for (const signal of STOP_SIGNALS) process.on(signal, onSignal);
  const releaseSignals = (): void => {
    for (const signal of STOP_SIGNALS) process.off(signal, onSignal);
  };
  try {
    saved = await unwrap(
      client.POST('/webhooks', {
        body: {
          url,
          description: `tollgate listen -> ${forwardTo}`,
          ...(options.events ? { events: options.events } : {}),
        },
      }),
    );
  } catch (error) {
    releaseSignals();
    server.close();
    if (isTollgateError(error, 'webhook_url_invalid', 'webhook_url_forbidden')) {
      throw new UsageError(
        `the service refused the local receiver ${url} (${error.code}: ${error.message}). It accepts loopback ` +
          'http receivers only when started with WEBHOOK_ALLOW_HTTP=true and WEBHOOK_ALLOW_PRIVATE=true ' +
          '(never in production; `npm run dev` may set them).',
      );
    }
    throw error;
  }
  const webhookId = saved.id;
  if (!stopping) {
    // Deliveries are forwarded signed as they came: the developer's endpoint verifies them with this secret. In
    // full it goes to a file only, never to a terminal's scrollback or a CI log.
    const secret = saved.secret;
    if (secret !== undefined && options.secretFile !== undefined) {
      writeFileSync(options.secretFile, `${secret}\n`, { mode: 0o600 });
      chmodSync(options.secretFile, 0o600);
    }
    const where =
      options.secretFile === undefined
        ? 'pass --secret-file <path> to store it'
        : `stored in ${options.secretFile}`;
    options.log(
      `webhook signing secret: ${secret === undefined ? '(not returned)' : `${maskSecret(secret)}, ${where}`}`,
    );
    options.log(
      `listening on ${url} as webhook ${webhookId} (events: ${saved.events.join(', ')}), forwarding to ` +
        `${forwardTo}; waiting for deliveries, Ctrl-C to stop`,
    );
  }

  await stopRequested;
  options.log(`stopping: deleting webhook ${webhookId}…`);
  // From here a Ctrl-C ends the process as usual.
  releaseSignals();
  server.close();
  server.closeAllConnections();
  try {
    await unwrap(client.DELETE('/webhooks/{id}', { params: { path: { id: webhookId } } }));
    options.log(`webhook ${webhookId} deleted`);
  } catch (error) {
    options.log(`could not delete webhook ${webhookId}: ${(error as Error).message}`);
  }
}
