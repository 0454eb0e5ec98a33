import fastifyCookie from '@fastify/cookie';
import { NestFactory } from '@nestjs/core';
import type { AutoRenewOptions } from './auto-renew/auto-renew.module.js';
import type { OpenAPIObject } from '@nestjs/swagger';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import {
  LogController,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type onResponseHookHandler,
} from 'fastify';
import type { Logger } from 'pino';
import { AppModule } from './app.module.js';
import { registerRateLimit, WalletRateLimitGuard } from './auth/rate-limit.js';
import type { AppConfig } from './config/app-config.js';
import {
  answerClientError,
  answerStalledRequests,
  connectionOptions,
  trackExchange,
} from './common/http/connection-limits.js';
import { answerFrameworkError, TransportErrors } from './common/http/framework-errors.js';
import { bodyProblem } from './common/http/request-body.js';
import { PinoNestLogger, requestLogHook } from './common/logging/logger.js';
import { API_SECURITY_HEADERS, HSTS_HEADER, isHttpsRequest } from './common/http/security-headers.js';
import { ResponseBatcher } from './common/http/response-batcher.js';
import { requestId } from './common/http/request-id.js';
import { UnexpectedBodyGuard } from './common/validation/unexpected-body.guard.js';
import { createValidationPipe } from './common/validation/validation.pipe.js';
import { Metrics } from './metrics/metrics.service.js';
import { buildOpenApiDocument } from './openapi/openapi.js';
import { serveDocs } from './openapi/docs.js';
import { NEXT_CURSOR_HEADER } from './common/pagination/cursor-page.js';
import { defaultMaxConnections } from './common/net/open-files.js';
import { traceRequests } from './tracing/request-spans.js';
import { tracing } from './tracing/tracing.js';

/** Request bodies over 64 KiB are refused with 413. */
export const BODY_LIMIT_BYTES = 64 * 1024;

/**
 * Builds the fully configured application without listening: `server-main.ts` listens on it, the tests listen on a
 * loopback port, and the OpenAPI script only reads its routes.
 */
export async function createApp(
  config: AppConfig,
  logger: Logger,
  autoRenew: AutoRenewOptions = {},
): Promise<NestFastifyApplication> {
  const app = await buildApp(config, logger, false, autoRenew);
  serveDocs(app, buildOpenApiDocument(app));
  await app.init();
  return app;
}

/**
 * The OpenAPI document of the app, built in Nest's preview mode: routes and DTOs are read from metadata, no
 * provider is instantiated and no database is needed (`npm run openapi`, the freshness test).
 */
export async function createOpenApiDocument(config: AppConfig, logger: Logger): Promise<OpenAPIObject> {
  const app = await buildApp(config, logger, true);
  try {
    return buildOpenApiDocument(app);
  } finally {
    await app.close();
  }
}

async function buildApp(
  config: AppConfig,
  logger: Logger,
  preview: boolean,
  autoRenew: AutoRenewOptions = {},
): Promise<NestFastifyApplication> {
  const adapter = new FastifyAdapter({
    loggerInstance: logger,
    // One line per request, written in the onResponse hook below, instead of Fastify's two.
    logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: 'requestId' }),
    genReqId: requestId,
    // X-Forwarded-Proto/-Host/-For count only from the proxies TRUST_PROXY names (https detection, client address).
    trustProxy: typeof config.trustProxy === 'boolean' ? config.trustProxy : [...config.trustProxy],
    bodyLimit: BODY_LIMIT_BYTES,
    ...connectionOptions({
      requestTimeoutMs: config.httpRequestTimeoutMs,
      headersTimeoutMs: config.httpHeadersTimeoutMs,
      idleTimeoutMs: config.httpIdleTimeoutMs,
      keepAliveTimeoutMs: config.httpKeepAliveTimeoutMs,
    }),
    // Requests arriving while the server closes are refused by the request hook below, with the error object.
    return503OnClosing: false,
    forceCloseConnections: 'idle',
    frameworkErrors: answerFrameworkError,
    clientErrorHandler: answerClientError,
  });
  const fastify = adapter.getInstance();
  answerStalledRequests(fastify.server);
  const maxConnections = config.maxConnections ?? defaultMaxConnections();
  if (maxConnections !== undefined) fastify.server.maxConnections = maxConnections;
  // First of all hooks: the others, the handler and the log line then run inside the request's span.
  if (!preview && tracing().enabled) traceRequests(fastify);
  let closing = false;
  fastify.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  const cors = config.corsOrigins.length > 0;
  const corsOrigins = new Set(config.corsOrigins);
  /** Why the first hook answers a request itself, if it does. */
  const refusalOf = (request: FastifyRequest): Error | undefined => {
    if (closing) return TransportErrors.shuttingDown();
    if (request.headers.host === undefined && request.raw.httpVersion === '1.1')
      return TransportErrors.missingHost();
    if (!hasOneHost(request.raw.rawHeaders)) return TransportErrors.invalidHost();
    // @fastify/cors would answer it with a bare text/plain 400.
    if (cors && request.method === 'OPTIONS' && !isPreflight(request))
      return TransportErrors.invalidPreflight();
    return undefined;
  };
  // The adapter's request hook runs before every other one, CORS included: every answer, a preflight's or a
  // refusal's, carries the request id and the security headers.
  adapter.setOnRequestHook((request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void) => {
    void reply.headers(API_SECURITY_HEADERS).header('x-request-id', request.id);
    if (isHttpsRequest(request)) void reply.header('strict-transport-security', HSTS_HEADER);
    trackExchange(request.raw, reply.raw, request.id);
    const refusal = refusalOf(request);
    if (refusal === undefined) return done();
    if (closing) void reply.header('connection', 'close');
    // @fastify/cors never sees a request refused here: an allowed page must still be able to read the refusal.
    if (cors) allowOrigin(request, reply, corsOrigins);
    done(refusal);
  });
  const batcher = new ResponseBatcher((error) => logger.error({ err: error }, 'writing a response failed'));
  fastify.addHook('onSend', (_request, _reply, payload, done) => batcher.defer(done, payload));
  fastify.addHook('preValidation', (request, _reply, done) => done(bodyProblem(request.body)));
  // Bodies are JSON only (Fastify's own parser; `bodyParser: false` below keeps Nest from adding a form parser):
  // any other content type is 415. Without this, Fastify would hand a text/plain body to the handlers as a string.
  fastify.removeContentTypeParser('text/plain');
  // Before Nest adds its routes: the limiter hooks each route as it is added.
  const rateLimitCounters = preview ? undefined : await registerRateLimit(fastify, config, logger);

  const app = await NestFactory.create<NestFastifyApplication>(
    AppModule.forRoot(config, autoRenew),
    adapter,
    {
      logger: new PinoNestLogger(logger),
      abortOnError: false,
      bodyParser: false,
      preview,
    },
  );
  // Parses the Cookie header into request.cookies (the session cookie strategy) and gives reply.setCookie.
  await app.register(fastifyCookie);
  if (!preview) installResponseHooks(fastify, logger, app.get(Metrics));
  app.useGlobalPipes(createValidationPipe());
  // After the access guard (registered by AuthModule as APP_GUARD during create): 401 comes before 429 and 400.
  const walletLimit =
    rateLimitCounters && config.rateLimitPerMinute
      ? [new WalletRateLimitGuard(rateLimitCounters, config.rateLimitPerMinute)]
      : [];
  app.useGlobalGuards(...walletLimit, new UnexpectedBodyGuard());
  if (cors) {
    app.enableCors({
      origin: [...config.corsOrigins],
      credentials: true,
      exposedHeaders: [...CORS_EXPOSED_HEADERS],
    });
  }
  return app;
}

/**
 * The request's log line (at LOG_LEVEL info and below) and its metrics (with METRICS_PORT), each hook installed
 * only when it is on: a hook costs on the hot path even when it does nothing.
 */
function installResponseHooks(fastify: FastifyInstance, logger: Logger, metrics: Metrics): void {
  if (metrics.enabled) {
    // Per route, at registration: the hook then knows its route template and series without looking them up.
    fastify.addHook('onRoute', (route) => {
      const observe = metrics.routeObserver(route.method, route.url);
      const hook: onResponseHookHandler = (_request, reply, done) => {
        observe(reply.statusCode, reply.elapsedTime / 1000);
        done();
      };
      route.onResponse = [...hooksOf(route.onResponse), hook];
    });
  }
  if (logger.isLevelEnabled('info')) fastify.addHook('onResponse', requestLogHook(logger));
}

/** Cross-origin callers may read the next page's cursor and the request id, not only the CORS-safe headers. */
const CORS_EXPOSED_HEADERS = [NEXT_CURSOR_HEADER, 'x-request-id'] as const;

/** What @fastify/cors gives an allowed origin (with `credentials: true`), for a refusal the plugin never sees. */
function allowOrigin(request: FastifyRequest, reply: FastifyReply, origins: ReadonlySet<string>): void {
  const vary = reply.getHeader('vary');
  void reply.header('vary', vary === undefined ? 'Origin' : `${String(vary)}, Origin`);
  const origin = request.headers.origin;
  if (origin === undefined || !origins.has(origin)) return;
  void reply.headers({
    'access-control-allow-origin': origin,
    'access-control-allow-credentials': 'true',
    'access-control-expose-headers': CORS_EXPOSED_HEADERS.join(', '),
  });
}

/** What @fastify/cors takes for a preflight: both headers present and not empty. */
function isPreflight(request: FastifyRequest): boolean {
  return Boolean(request.headers.origin) && Boolean(request.headers['access-control-request-method']);
}

/**
 * At most one Host header, not empty (RFC 9112 §3.2 asks for 400 otherwise). Node keeps the first of several, which
 * a proxy in front may not have, so two hosts could mean two different sites to it and to us.
 */
function hasOneHost(rawHeaders: readonly string[]): boolean {
  let hosts = 0;
  for (let index = 0; index < rawHeaders.length; index += 2) {
    if (rawHeaders[index]!.length !== 4 || rawHeaders[index]!.toLowerCase() !== 'host') continue;
    if (++hosts > 1 || rawHeaders[index + 1]!.trim() === '') return false;
  }
  return true;
}

function hooksOf<T>(value: T | T[] | undefined): T[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}
