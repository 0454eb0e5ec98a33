import { type CanActivate, type ExecutionContext, Inject, Injectable, Optional } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Strategy } from 'passport';
import type { AppConfig } from '../../config/app-config.js';
import { APP_CONFIG } from '../../config/app-config.module.js';
import { ApiError } from '../../common/errors/api-error.js';
import { looksLikeApiKey } from '../../api-keys/api-key-format.js';
import { AuthErrors } from '../auth.errors.js';
import type { Principal } from '../principal.js';
import { readCredential, type RequestCredential } from '../strategies/request-credential.js';
import { JwtSessionStrategy } from '../strategies/jwt-session.strategy.js';
import { runStrategy } from '../strategies/run-strategy.js';
import { InvalidationLog, type InvalidationTicket } from '../../database/invalidation-log.service.js';
import { isAllowedCookieRequest } from './csrf-origin.js';
import { routeAccess } from './route-access.js';

/** Injection token of the API-key strategy (provided by the api-keys module). */
export const API_KEY_STRATEGY = Symbol('API_KEY_STRATEGY');

type GuardedRequest = {
  method: string;
  headers: Record<string, string | string[] | undefined>;
  credential?: RequestCredential;
  invalidationTicket?: InvalidationTicket;
  user?: Principal;
};

/** Maps passport-jwt's failure reasons to the contract's 401 codes. */
function jwtFailure(info: unknown): ApiError {
  if (info instanceof ApiError) return info;
  const name = (info as { name?: string } | undefined)?.name;
  if (name === 'TokenExpiredError') return AuthErrors.tokenExpired();
  return AuthErrors.invalidToken();
}

/**
 * Global and default-deny: every route needs a credential unless it is marked `@Public()`. The Bearer header (a
 * JWT or an API key, told apart by the key prefix) or the session cookie is turned into a {@link Principal} by the
 * matching passport strategy; cookie-authenticated writes must also pass the CSRF origin check.
 */
@Injectable()
export class AuthenticationGuard implements CanActivate {
  private readonly allowedOrigins: ReadonlySet<string>;

  constructor(
    private readonly reflector: Reflector,
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly jwtStrategy: JwtSessionStrategy,
    private readonly invalidations: InvalidationLog,
    @Optional() @Inject(API_KEY_STRATEGY) private readonly apiKeyStrategy?: Strategy,
  ) {
    this.allowedOrigins = new Set([...config.corsOrigins, new URL(config.authUri).origin]);
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (routeAccess(this.reflector, context).public) return true;
    const request = context.switchToHttp().getRequest<GuardedRequest>();
    const credential = readCredential(request);
    if (credential === undefined) throw AuthErrors.missingCredentials();
    if (credential === null) throw AuthErrors.invalidToken();
    request.credential = credential;
    request.invalidationTicket = this.invalidations.ticket();

    const principal =
      credential.carrier === 'header' && looksLikeApiKey(credential.token)
        ? await this.authenticateApiKey(request)
        : await this.authenticateJwt(request);
    if (principal.carrier === 'cookie' && !isAllowedCookieRequest(request, this.allowedOrigins)) {
      throw AuthErrors.csrfOriginMismatch();
    }
    request.user = principal;
    return true;
  }

  private async authenticateJwt(request: GuardedRequest): Promise<Principal> {
    const outcome = await runStrategy<Principal>(this.jwtStrategy, request);
    if (outcome.kind === 'success') return outcome.user;
    if (outcome.kind === 'error') throw outcome.error;
    throw jwtFailure(outcome.info);
  }

  private async authenticateApiKey(request: GuardedRequest): Promise<Principal> {
    if (!this.apiKeyStrategy) throw AuthErrors.invalidApiKey();
    const outcome = await runStrategy<Principal>(this.apiKeyStrategy, request);
    if (outcome.kind === 'success') return outcome.user;
    if (outcome.kind === 'error') throw outcome.error;
    throw outcome.info instanceof ApiError ? outcome.info : AuthErrors.invalidApiKey();
  }
}
