import { HttpStatus, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { isDatabaseUnavailable } from '../../database/database.errors.js';
import { ApiError } from '../../common/errors/api-error.js';
import { toErrorResponse, type ErrorBody } from '../../common/http/error-response.js';
import { Database, type SqlExecutor } from '../../database/database.service.js';
import { SubscriptionErrors } from '../subscriptions.errors.js';
import type { Principal } from '../../auth/principal.js';
import { IdempotencyRepository } from './idempotency.repository.js';
import { idempotencyPrincipal, requestFingerprint, type IdempotentRequest } from './idempotent-request.js';

/** A key replays its first response for 24 hours. */
export const IDEMPOTENCY_KEY_TTL_SECONDS = 24 * 60 * 60;
/**
 * An attempt that has neither completed nor released its key after this long is presumed dead (its process
 * crashed; its transaction rolled back), and a retry of the same request takes the key over. Far above what a live
 * attempt can take: each of its statements is cut off after 15 s. An attempt whose process is known gone is taken
 * over sooner (IdempotencyRepository.claim); this rule is for the rest (no session, behind a transaction pooler).
 */
export const IDEMPOTENCY_TAKEOVER_SECONDS = 60;
const PURGE_INTERVAL_MS = 10 * 60_000;
/** Claiming reads the record after a refused claim; it can vanish in between (purged), and is then claimed anew. */
const CLAIM_ATTEMPTS = 3;

type Claim = { kind: 'claimed'; lease: string } | { kind: 'replay'; body: unknown };

/**
 * A change's hold on its `Idempotency-Key`, from {@link IdempotencyService.begin}. Without a key there is nothing
 * to hold: `replay` is undefined and `complete` and `abandon` do nothing.
 */
export interface IdempotencyClaim<T> {
  /** The first attempt's answer under this key and request: answer it again, and change nothing. */
  readonly replay: T | undefined;
  /**
   * Stores `body` as the answer to replay, in the change's own transaction, so the change and its record commit
   * together. Throws 409 idempotency_in_progress when another attempt took the key over: the change rolls back.
   */
  complete(tx: SqlExecutor, body: T): Promise<void>;
  /** The change rolled back with `error`: a refusal is kept for replay, any other failure frees the key. */
  abandon(error: unknown): Promise<void>;
}

const NOTHING_TO_HOLD: IdempotencyClaim<never> = Object.freeze({
  replay: undefined,
  complete: () => Promise.resolve(),
  abandon: () => Promise.resolve(),
});

/**
 * Lets a change run at most once per `Idempotency-Key`. The key is claimed (`in_progress`) in a statement of its
 * own before the change, so that a concurrent retry sees it at once (409); the change's transaction then marks it
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
   * Claims `key` (the `Idempotency-Key` header; none: nothing to claim) for `operation` with `parameters` (defaults
   * applied, addresses normalised: see requestFingerprint). An earlier answer to the same request comes back as
   * `replay` (an error answer is thrown again); the key used with another request is a 400
   * idempotency_key_reused, and while its first attempt still runs a 409 idempotency_in_progress.
   */
  async begin<T>(
    principal: Principal,
    key: string | undefined,
    operation: string,
    parameters: Record<string, unknown>,
  ): Promise<IdempotencyClaim<T>> {
    if (key === undefined) return NOTHING_TO_HOLD;
    const request: IdempotentRequest = {
      principal: idempotencyPrincipal(principal),
      key,
      fingerprint: requestFingerprint(operation, parameters),
    };
    const claim = await this.claim(request);
    if (claim.kind === 'replay') return { ...NOTHING_TO_HOLD, replay: claim.body as T };
    const { lease } = claim;
    return {
      replay: undefined,
      complete: async (tx, body) => {
        if (!(await this.repository.complete(tx, request, lease, HttpStatus.OK, body))) {
          // Taken over as stale: that attempt owns the key now, and this one must leave no effect.
          throw SubscriptionErrors.idempotencyInProgress();
        }
      },
      abandon: (error) => this.settleFailure(request, lease, error),
    };
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
      // An outage is logged once, when it starts (DatabaseAvailability); the lease then simply runs out.
      if (isDatabaseUnavailable(settleError)) return;
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
