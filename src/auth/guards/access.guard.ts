import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthGuard } from '@nestjs/passport';
import { InvalidationLog, type TicketCarrier } from '../../cache/invalidation-log.service.js';
import { AuthErrors } from '../auth.errors.js';
import type { Principal } from '../principal.js';
import type { CredentialRequest } from '../strategies/session-credentials.js';
import { CredentialRoutes } from './credential-routes.js';
import { routeAccess } from './route-access.js';

/** passport-jwt's reason for refusing a token it read, when it read one. */
function jwtFailure(info: unknown): Error | undefined {
  return [info]
    .flat()
    .find(
      (reason): reason is Error =>
        reason instanceof Error &&
        ['TokenExpiredError', 'JsonWebTokenError', 'NotBeforeError'].includes(reason.name),
    );
}

/**
 * @nestjs/passport's AuthGuard for one strategy. A strategy that recognises its credential and refuses it throws
 * its own 401 (or the cookie's CSRF 403) from validate(); one that fails without saying why is named here.
 */
function strategyGuard(strategy: string): CanActivate {
  class StrategyGuard extends AuthGuard(strategy) {
    override handleRequest<User = Principal>(error: unknown, user: User | false, info: unknown): User {
      if (error) throw error;
      if (user) return user;
      const failure = jwtFailure(info);
      throw failure?.name === 'TokenExpiredError' ? AuthErrors.tokenExpired() : AuthErrors.invalidToken();
    }
  }
  return new StrategyGuard();
}

/**
 * The global guard, default-deny: a route needs a credential unless it is marked `@Public()`, and the principal
 * must hold one of the scopes its `@Authenticated` names. The credential goes to the one strategy its shape names
 * (CredentialRoutes): 'api-key', 'jwt' or 'session-cookie'.
 */
@Injectable()
export class AccessGuard implements CanActivate {
  private readonly guards = new Map<string, CanActivate>();

  constructor(
    private readonly reflector: Reflector,
    private readonly routes: CredentialRoutes,
    private readonly invalidations: InvalidationLog,
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
    // Before anything reads a cache for this request: the strategies and handlers pass it on. Public routes read
    // none with it (a read without a ticket takes its own), so they are spared the write to the request.
    this.invalidations.requestTicket(request as TicketCarrier);
    await this.guardFor(strategy).canActivate(context);
    const { options } = access;
    const principal = request.user;
    if (options.jwtOnly && principal.via !== 'jwt') throw AuthErrors.jwtRequired();
    if (!options.scopes.some((scope) => principal.scopes.includes(scope))) {
      throw AuthErrors.insufficientScope(options.scopes);
    }
    return true;
  }

  private guardFor(strategy: string): CanActivate {
    let guard = this.guards.get(strategy);
    if (guard === undefined) {
      guard = strategyGuard(strategy);
      this.guards.set(strategy, guard);
    }
    return guard;
  }
}
