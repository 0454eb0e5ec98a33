import { Inject, Injectable } from '@nestjs/common';
import { Strategy } from 'passport-jwt';
import type { AppConfig } from '../../config/app-config.js';
import { APP_CONFIG } from '../../config/app-config.module.js';
import { checksumAddress, isWalletAddress } from '../../common/address/wallet-address.js';
import { AuthErrors } from '../auth.errors.js';
import { SessionRevocations } from '../session-revocations.service.js';
import type { Principal } from '../principal.js';
import { ALL_SCOPES } from '../scopes.js';
import {
  JWT_ALGORITHM,
  JWT_AUDIENCE,
  JWT_ISSUER,
  SessionTokenService,
  type SessionClaims,
} from '../session-token.service.js';
import type { RequestCredential } from './request-credential.js';
import { ExpiringCache } from '../../common/cache/expiring-cache.js';
import type { InvalidationTicket } from '../../database/invalidation-log.service.js';

/** The request as the strategies see it: the guard has already picked the credential out. */
export interface StrategyRequest {
  credential: RequestCredential;
  /** Taken by the guard once the request arrived: the caches consulted for it are at least this fresh. */
  invalidationTicket: InvalidationTicket;
}

type Done = (error: unknown, user?: Principal | false) => void;

/** Verified tokens are kept at most this long (and never past their own expiry). */
const VERIFIED_TTL_MS = 5 * 60_000;

/**
 * passport-jwt strategy for session tokens, from the Authorization header or the `tg_session` cookie: HS256 only,
 * issuer and audience checked, and a logged-out token refused. A token whose signature and claims were verified
 * is remembered until it expires, so repeated requests skip the HMAC and JSON decoding; the logout check still
 * runs on every request.
 */
@Injectable()
export class JwtSessionStrategy extends Strategy {
  private readonly verified = new ExpiringCache<SessionClaims>(100_000, VERIFIED_TTL_MS);

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    tokens: SessionTokenService,
    private readonly revocations: SessionRevocations,
  ) {
    super(
      {
        jwtFromRequest: (request: StrategyRequest) => request.credential.token,
        secretOrKey: tokens.key as unknown as string,
        algorithms: [JWT_ALGORITHM],
        issuer: JWT_ISSUER,
        audience: JWT_AUDIENCE,
        passReqToCallback: true,
      },
      (request: StrategyRequest, claims: SessionClaims, done: Done) => {
        if (typeof claims.exp === 'number')
          this.verified.set(request.credential.token, claims, claims.exp * 1000);
        this.checkClaims(request, claims, done);
      },
    );
  }

  override authenticate(...args: Parameters<Strategy['authenticate']>): void {
    const request = args[0] as unknown as StrategyRequest;
    const claims = this.verified.get(request.credential.token);
    if (!claims) return super.authenticate(...args);
    // Called on the per-request object passport (here: runStrategy) creates, which has success/fail/error.
    const attempt = this as unknown as {
      success(user: Principal): void;
      fail(): void;
      error(error: unknown): void;
    };
    this.checkClaims(request, claims, (error, user) => {
      if (error) attempt.error(error);
      else if (user) attempt.success(user);
      else attempt.fail();
    });
  }

  /** The claims beyond the signature: their shape, and that the token was not logged out. */
  private checkClaims(request: StrategyRequest, claims: SessionClaims, done: Done): void {
    if (typeof claims.jti !== 'string' || typeof claims.exp !== 'number' || !isWalletAddress(claims.sub)) {
      done(AuthErrors.invalidToken(), false);
      return;
    }
    this.revocations.isRevoked(claims.jti, request.invalidationTicket).then(
      (revoked) => {
        if (revoked) return done(AuthErrors.tokenRevoked(), false);
        const address = checksumAddress(claims.sub);
        done(null, {
          address,
          scopes: ALL_SCOPES,
          via: 'jwt',
          carrier: request.credential.carrier,
          operator: this.config.operatorAddresses.has(address.toLowerCase()),
          tokenId: claims.jti,
          tokenExpiresAt: new Date(claims.exp * 1000),
          freshAsOf: request.invalidationTicket,
        });
      },
      (error: unknown) => done(error),
    );
  }
}
