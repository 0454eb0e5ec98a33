import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { type CanActivate, type ExecutionContext, HttpStatus } from '@nestjs/common';
import fastifyRateLimit, { normalizeIP } from '@fastify/rate-limit';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Redis } from 'ioredis';
import { LRUCache } from 'lru-cache';
import type { Logger } from 'pino';
import type { AppConfig } from '../config/app-config.js';
import { ApiError } from '../common/errors/api-error.js';
import type { Principal } from './principal.js';
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

/** One counter's state after an increment, as @fastify/rate-limit's stores report it. */
interface Count {
  current: number;
  /** Milliseconds until the window ends. */
  ttl: number;
}

/** @fastify/rate-limit's store interface: the plugin and the wallet guard count through the same one. */
export interface RateLimitCounters {
  incr(
    key: string,
    done: (error: Error | null, count?: Count) => void,
    timeWindow: number,
    max: number,
  ): void;
  child(): RateLimitCounters;
}

/**
 * The counters of one process (without RATE_LIMIT_REDIS_URL), in one bounded store per kind of key (client address,
 * credential, wallet), each dropping its least recently used counters first. Kept apart so that requests with
 * invented credentials, each a counter of its own, push out only other credentials' counters, never an address's
 * budget (which would start afresh) or a wallet's.
 */
export class LocalCounters implements RateLimitCounters {
  private readonly kinds = new Map<string, LRUCache<string, { current: number; startMs: number }>>();

  constructor(private readonly perKind: number) {}

  incr(key: string, done: (error: Error | null, count?: Count) => void, timeWindow: number): void {
    const kind = key.slice(0, key.indexOf(':') + 1);
    let counters = this.kinds.get(kind);
    if (counters === undefined) {
      counters = new LRUCache({ max: this.perKind });
      this.kinds.set(kind, counters);
    }
    const now = Date.now();
    let counter = counters.get(key);
    if (counter === undefined || counter.startMs + timeWindow <= now) {
      counter = { current: 0, startMs: now };
      counters.set(key, counter);
    }
    counter.current++;
    done(null, { current: counter.current, ttl: counter.startMs + timeWindow - now });
  }

  child(): RateLimitCounters {
    return this;
  }
}

type RedisStoreConstructor = new (
  continueExceeding: boolean,
  exponentialBackoff: boolean,
  redis: Redis,
  nameSpace: string,
) => RateLimitCounters;
/** The plugin's own Redis store (one Lua script per count); not exported by its entry point, hence the path. */
const RedisStore = createRequire(import.meta.url)(
  '@fastify/rate-limit/store/RedisStore.js',
) as RedisStoreConstructor;

/**
 * RATE_LIMIT_PER_MINUTE with @fastify/rate-limit: off when unset or 0. Registered before Nest adds its routes (the
 * plugin hooks every route as it is added), and run in `onRequest`, before the body is read. Counters live in Redis
 * when RATE_LIMIT_REDIS_URL is set (shared by every instance), else in this process. A counter store that fails
 * lets requests through (logged): the limit protects the service, and an outage of Redis must not take it down.
 * Returns the counters, for {@link WalletRateLimitGuard}, or undefined when the limit is off.
 */
export async function registerRateLimit(
  fastify: FastifyInstance,
  config: AppConfig,
  logger: Logger,
): Promise<RateLimitCounters | undefined> {
  const max = config.rateLimitPerMinute;
  if (!max) return undefined;
  const redis = config.rateLimitRedisUrl ? await connectRedis(config.rateLimitRedisUrl, logger) : undefined;
  const counters = redis
    ? new RedisStore(false, false, redis, REDIS_NAMESPACE)
    : new LocalCounters(config.rateLimitLocalCounters);
  await fastify.register(fastifyRateLimit, {
    global: true,
    max,
    timeWindow: RATE_LIMIT_WINDOW_MS,
    hook: 'onRequest',
    keyGenerator: rateLimitKey,
    errorResponseBuilder: (_request, context) => rateLimited(Math.max(1, Math.ceil(context.ttl / 1000))),
    skipOnError: true,
    // The plugin builds its store with `new`; a constructor that returns an object hands over that object.
    store: function sharedCounters() {
      return counters;
    } as unknown as NonNullable<Parameters<typeof fastifyRateLimit>[1]>['store'],
  });
  if (redis) fastify.addHook('onClose', async () => void (await redis.quit().catch(() => undefined)));
  return counters;
}

/**
 * The wallet's budget, after authentication: every credential of a wallet (its sessions, each of its API keys)
 * spends one budget of RATE_LIMIT_PER_MINUTE besides its own, so that creating keys buys no requests. Registered
 * after the access guard, which puts the principal on the request; public routes have none and are left to the
 * address budget. A counter store that fails lets the request through, as the plugin does.
 */
export class WalletRateLimitGuard implements CanActivate {
  constructor(
    private readonly counters: RateLimitCounters,
    private readonly max: number,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const http = context.switchToHttp();
    const principal = http.getRequest<{ user?: Principal }>().user;
    if (principal === undefined) return true;
    const count = await new Promise<Count | undefined>((resolve) =>
      this.counters.incr(
        `wallet:${principal.address.toLowerCase()}`,
        (error, counted) => resolve(error ? undefined : counted),
        RATE_LIMIT_WINDOW_MS,
        this.max,
      ),
    );
    if (count === undefined || count.current <= this.max) return true;
    const retryAfterSeconds = Math.max(1, Math.ceil(count.ttl / 1000));
    void http.getResponse<FastifyReply>().header('retry-after', String(retryAfterSeconds));
    throw rateLimited(retryAfterSeconds);
  }
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
