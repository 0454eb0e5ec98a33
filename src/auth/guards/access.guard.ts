import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { CacheLeases } from '../../cache/cache-leases.service.js';
import { InvalidationLog } from '../../cache/invalidation-log.service.js';
import { AuthErrors } from '../auth.errors.js';
import type { Principal } from '../principal.js';
import type { CredentialRequest } from '../strategies/session-credentials.js';
import { CredentialRoutes } from './credential-routes.js';
import { attemptStrategy } from './strategy-attempt.js';
import { checkAccess, routeAccess } from './route-access.js';

/**
 * The global guard, default-deny: a route needs a credential unless it is marked `@Public()`, and the principal
 * must hold one of the scopes its `@Authenticated` names (and be an operator where it says `operator: true`). The credential goes to the one passport strategy its shape
 * names (CredentialRoutes: 'api-key', 'jwt' or 'session-cookie'), run once by `attemptStrategy` rather than through
 * `@nestjs/passport`'s `AuthGuard` (docs/decisions/2026-11-25-strategy-attempt-instead-of-authguard.md). A strategy
 * that recognises its credential and refuses it throws its own 401 (or the cookie's CSRF 403) from validate(); one
 * that fails without saying why is named here. A request with a credential is first admitted through the
 * invalidation barrier (InvalidationLog), so the caches read for it, by the strategy or by the handler's services,
 * miss nothing committed before it arrived (or, with `CACHE_COHERENCE=acknowledged`, while this instance's lease
 * holds, by every writer having waited for this instance: CacheLeases).
 */
@Injectable()
export class AccessGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly routes: CredentialRoutes,
    private readonly invalidations: InvalidationLog,
    private readonly leases: CacheLeases,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const access = routeAccess(this.reflector, context);
    if (access.public) return true;
    const request = context.switchToHttp().getRequest<CredentialRequest & { user: Principal }>();
    const strategy = this.routes.strategyFor(request);
    if (strategy === undefined) {
      // Nothing was sent, or an Authorization header that is not a Bearer token.
      throw request.headers.authorization === undefined
        ? AuthErrors.missingCredentials()
        : AuthErrors.invalidToken();
    }
    // Admitted through the invalidation barrier before any cache answers for this request (the strategy's or the
    // handler's): whatever was revoked or changed before it arrived is applied here, on whichever instance it is.
    // While this instance's cache lease holds, every writer has waited for it to apply its change instead: the
    // request is admitted with its batch and after a read under way, with no round trip (CacheLeases.admit).
    if (!this.leases.current) await this.invalidations.barrier();
    else await this.leases.admit();
    const outcome = await attemptStrategy<Principal>(strategy, request);
    if (!outcome.user) {
      // passport-jwt fails with jsonwebtoken's error as the reason; any reason but expiry is an invalid token.
      const expired = outcome.reason instanceof Error && outcome.reason.name === 'TokenExpiredError';
      throw expired ? AuthErrors.tokenExpired() : AuthErrors.invalidToken();
    }
    checkAccess(access.options, (request.user = outcome.user));
    return true;
  }
}
