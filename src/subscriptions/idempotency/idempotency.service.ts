import { HttpStatus, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { ApiError } from '../../common/errors/api-error.js';
import { toErrorResponse, type ErrorBody } from '../../common/http/error-response.js';
import { Database, type SqlExecutor } from '../../database/database.service.js';
import { SubscriptionErrors } from '../subscriptions.errors.js';
import { IdempotencyRepository } from './idempotency.repository.js';
import type { IdempotentRequest } from './idempotent-request.js';

/** A key replays its first response for 24 hours. */
export const IDEMPOTENCY_KEY_TTL_SECONDS = 24 * 60 * 60;
/**
 * An attempt that has neither completed nor released its key after this long is presumed dead (its process
 * crashed; its transaction rolled back), and a retry of the same request takes the key over. Far above what a live
 * attempt can take: each of its statements is cut off after 15 s.
 */
export const IDEMPOTENCY_TAKEOVER_SECONDS = 60;
const PURGE_INTERVAL_MS = 10 * 60_000;
/** Claiming reads the record after a refused claim; it can vanish in between (purged), and is then claimed anew. */
const CLAIM_ATTEMPTS = 3;

type Claim = { kind: 'claimed'; lease: string } | { kind: 'replay'; body: unknown };

/**
 * Runs a change at most once per `Idempotency-Key`. The key is claimed (`in_progress`) in a statement of its own,
 * so that a concurrent retry sees it at once (409); the change then runs in one transaction that also marks the key
 * `completed` with the response, so a crash can never leave a change without its record, nor a record without its
 * change.
 */
@Injectable()
export class IdempotencyService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(IdempotencyService.name);
  private purgeTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly db: Database,
    private readonly repository: IdempotencyRepository,
  ) {}

  onModuleInit(): void {
    this.purgeTimer = setInterval(() => void this.purge(), PURGE_INTERVAL_MS).unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.purgeTimer);
  }

  /**
   * Runs `work` in one transaction, after `prepare` (which runs outside it: a payment check that waits on the
   * chain must hold no lock); with a request, at most once per key: a repeat replays the stored response (an error
   * response is thrown again), another request under the key is a 400, a repeat while the first still runs a 409.
   */
  async execute<T, P = void>(
    request: IdempotentRequest | undefined,
    work: (tx: SqlExecutor, prepared: P) => Promise<T>,
    prepare: () => Promise<P> = () => Promise.resolve(undefined as P),
  ): Promise<T> {
    if (request === undefined) {
      const prepared = await prepare();
      return this.db.transaction((tx) => work(tx, prepared));
    }
    const claim = await this.claim(request);
    if (claim.kind === 'replay') return claim.body as T;
    try {
      const prepared = await prepare();
      return await this.db.transaction(async (tx) => {
        const body = await work(tx, prepared);
        if (!(await this.repository.complete(tx, request, claim.lease, HttpStatus.OK, body))) {
          // Taken over as stale: that attempt owns the key now, and this one must leave no effect.
          throw SubscriptionErrors.idempotencyInProgress();
        }
        return body;
      });
    } catch (error) {
      await this.settleFailure(request, claim.lease, error);
      throw error;
    }
  }

  private async claim(request: IdempotentRequest): Promise<Claim> {
    for (let attempt = 0; attempt < CLAIM_ATTEMPTS; attempt++) {
      const lease = await this.repository.claim(
        request,
        IDEMPOTENCY_KEY_TTL_SECONDS,
        IDEMPOTENCY_TAKEOVER_SECONDS,
      );
      if (lease !== null) return { kind: 'claimed', lease };
      const record = await this.repository.find(request);
      if (record === null) continue;
      if (record.fingerprint !== request.fingerprint) throw SubscriptionErrors.idempotencyKeyReused();
      if (record.status === 'in_progress') throw SubscriptionErrors.idempotencyInProgress();
      if (record.responseStatus === HttpStatus.OK) return { kind: 'replay', body: record.responseBody };
      const { error, details } = record.responseBody as ErrorBody;
      const { code, ...rest } = details;
      throw new ApiError(record.responseStatus as HttpStatus, code, error, rest);
    }
    throw SubscriptionErrors.idempotencyInProgress();
  }

  /**
   * The change rolled back. A refusal (4xx) is the request's answer and is kept for replay like a success; any
   * other failure, or a refusal that may turn out otherwise later, frees the key so the client can retry with it. Should this bookkeeping fail too, the claim is
   * taken over after IDEMPOTENCY_TAKEOVER_SECONDS.
   */
  private async settleFailure(request: IdempotentRequest, lease: string, error: unknown): Promise<void> {
    try {
      if (
        error instanceof ApiError &&
        error.getStatus() < HttpStatus.INTERNAL_SERVER_ERROR &&
        !error.retryable
      ) {
        const response = toErrorResponse(error);
        await this.repository.complete(this.db, request, lease, response.status, response.body);
      } else {
        await this.repository.release(request, lease);
      }
    } catch (settleError) {
      this.logger.warn(`settling a failed idempotent request failed: ${(settleError as Error).message}`);
    }
  }

  private async purge(): Promise<void> {
    try {
      const purged = await this.repository.purgeExpired();
      if (purged > 0) this.logger.debug({ purged, msg: 'purged expired idempotency keys' });
    } catch (error) {
      this.logger.warn(`purging expired idempotency keys failed: ${(error as Error).message}`);
    }
  }
}
