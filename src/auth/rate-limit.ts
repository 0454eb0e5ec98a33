import { createHash } from 'node:crypto';
import { HttpStatus } from '@nestjs/common';
import fastifyRateLimit, { normalizeIP } from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { AppConfig } from '../config/app-config.js';
import { ApiError } from '../common/errors/api-error.js';
import { bearerToken, sessionCookieToken } from './strategies/session-credentials.js';

export const RATE_LIMIT_WINDOW_MS = 60_000;

/** Keeps counter keys apart from anything else in a shared Redis, and from the API keys' stored digests. */
const REDIS_NAMESPACE = 'tollgate-rate-limit:';
const DIGEST_CONTEXT = 'tollgate rate limit\0';

/**
 * Whose budget a request spends. Public routes (marked by `@Public()`): the client's address, whatever credential it
 * presents, so inventing credentials buys no requests on them. Other routes: the presented credential (Bearer
 * header, else the session cookie), by a digest, never the secret itself; without one, the client's address.
 * The address is Fastify's `request.ip`: the connection's peer, or what the proxies TRUST_PROXY names forward.
 */
export function rateLimitKey(request: FastifyRequest): string {
  const address = `ip:${normalizeIP(request.ip)}`;
  if ((request.routeOptions.config as { public?: boolean }).public === true) return address;
  const credential = bearerToken(request) ?? sessionCookieToken(request);
  if (credential === null) return address;
  return `credential:${createHash('sha256').update(DIGEST_CONTEXT).update(credential).digest('base64url')}`;
}

export function rateLimited(retryAfterSeconds: number): ApiError {
  return new ApiError(
    HttpStatus.TOO_MANY_REQUESTS,
    'rate_limited',
    `Too many requests: retry in ${retryAfterSeconds} s`,
    { retryAfterSeconds },
  );
}

/**
 * RATE_LIMIT_PER_MINUTE with @fastify/rate-limit: off when unset or 0. Registered before Nest adds its routes (the
 * plugin hooks every route as it is added), and run in `onRequest`, before the body is read. Counters live in Redis
 * when RATE_LIMIT_REDIS_URL is set (shared by every instance), else in this process. A counter store that fails
 * lets requests through (logged): the limit protects the service, and an outage of Redis must not take it down.
 */
export async function registerRateLimit(
  fastify: FastifyInstance,
  config: AppConfig,
  logger: Logger,
): Promise<void> {
  const max = config.rateLimitPerMinute;
  if (!max) return;
  const redis = config.rateLimitRedisUrl ? await connectRedis(config.rateLimitRedisUrl, logger) : undefined;
  await fastify.register(fastifyRateLimit, {
    global: true,
    max,
    timeWindow: RATE_LIMIT_WINDOW_MS,
    hook: 'onRequest',
    keyGenerator: rateLimitKey,
    errorResponseBuilder: (_request, context) => rateLimited(Math.max(1, Math.ceil(context.ttl / 1000))),
    skipOnError: true,
    ...(redis ? { redis, nameSpace: REDIS_NAMESPACE } : { cache: 100_000 }),
  });
  if (redis) fastify.addHook('onClose', async () => void (await redis.quit().catch(() => undefined)));
}

async function connectRedis(url: string, logger: Logger): Promise<Redis> {
  const redis = new Redis(url, {
    lazyConnect: true,
    connectTimeout: 2000,
    // Fail a counter update at once rather than hold the request: the limiter then lets it through.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    commandTimeout: 1000,
  });
  let failing = false;
  redis.on('error', (error: Error) => {
    if (failing) return;
    failing = true;
    logger.warn({ err: error }, 'rate-limit Redis unreachable: requests are not limited until it is back');
  });
  redis.on('ready', () => {
    if (failing) logger.info('rate-limit Redis reachable again');
    failing = false;
  });
  try {
    await redis.connect();
  } catch {
    // Logged by the error listener; ioredis keeps reconnecting.
  }
  return redis;
}
