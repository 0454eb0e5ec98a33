import { type ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthGuard } from '@nestjs/passport';
import { InvalidationLog, type TicketCarrier } from '../../cache/invalidation-log.service.js';
import { AuthErrors } from '../auth.errors.js';
import type { Principal } from '../principal.js';
import type { CredentialRequest } from '../strategies/session-credentials.js';
import { routeAccess } from './route-access.js';

/**
 * The passport strategies a request is offered to, in order; the first to succeed names the principal. Each one
 * answers only for its own credential: 'api-key' (registered by the api-keys module) for a Bearer API key, 'jwt'
 * for another Bearer token, 'session-cookie' for the cookie when no Authorization header is sent. A strategy that
 * recognises its credential but refuses it throws its own 401 (or the cookie's CSRF 403), which ends the attempt.
 */
const STRATEGIES = ['api-key', 'jwt', 'session-cookie'];

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
 * The global guard, default-deny: a route needs a credential unless it is marked `@Public()`, and the principal
 * must hold one of the scopes its `@Authenticated` names.
 */
@Injectable()
export class AccessGuard extends AuthGuard(STRATEGIES) {
  constructor(
    private readonly reflector: Reflector,
    private readonly invalidations: InvalidationLog,
  ) {
    super();
  }

  override async canActivate(context: ExecutionContext): Promise<boolean> {
    const access = routeAccess(this.reflector, context);
    if (access.public) return true;
    // Before anything reads a cache for this request: the strategies and handlers pass it on. Public routes read
    // none with it (a read without a ticket takes its own), so they are spared the write to the request.
    this.invalidations.requestTicket(context.switchToHttp().getRequest<TicketCarrier>());
    await super.canActivate(context);
    const { options } = access;
    const principal = context.switchToHttp().getRequest<{ user: Principal }>().user;
    if (options.jwtOnly && principal.via !== 'jwt') throw AuthErrors.jwtRequired();
    if (!options.scopes.some((scope) => principal.scopes.includes(scope))) {
      throw AuthErrors.insufficientScope(options.scopes);
    }
    return true;
  }

  /** When every strategy passed: the contract's 401 code for why. */
  override handleRequest<User = Principal>(
    error: unknown,
    user: User | false,
    info: unknown,
    context: ExecutionContext,
  ): User {
    if (error) throw error;
    if (user) return user;
    const failure = jwtFailure(info);
    if (failure?.name === 'TokenExpiredError') throw AuthErrors.tokenExpired();
    if (failure) throw AuthErrors.invalidToken();
    // No strategy read a token: either nothing was sent, or an Authorization header that is not a Bearer token.
    const request = context.switchToHttp().getRequest<CredentialRequest>();
    throw request.headers.authorization === undefined
      ? AuthErrors.missingCredentials()
      : AuthErrors.invalidToken();
  }
}
