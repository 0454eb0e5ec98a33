import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthGuard, type IAuthGuard } from '@nestjs/passport';
import { InvalidationLog } from '../../cache/invalidation-log.service.js';
import { AuthErrors } from '../auth.errors.js';
import type { Principal } from '../principal.js';
import {
  bearerToken,
  sessionCookieToken,
  type CredentialRequest,
} from '../strategies/session-credentials.js';
import { routeAccess } from './route-access.js';

/** A JWT's compact form: three base64url segments. */
const JWT_SHAPE = /^[\w-]+\.[\w-]+\.[\w-]*$/;

/**
 * The passport strategy for the credential a request presents: 'jwt' for a Bearer token of a JWT's shape,
 * 'api-key' (registered by the api-keys module, which alone knows its keys' format) for any other Bearer token,
 * 'session-cookie' for the cookie when no Authorization header is sent (CONTRACT.md section 2: the header alone
 * decides when present); null when there is no credential to read. One strategy runs per request, instead of each
 * in turn until one finds its credential.
 */
export function strategyFor(request: CredentialRequest): 'api-key' | 'jwt' | 'session-cookie' | null {
  const token = bearerToken(request);
  if (token !== null) return JWT_SHAPE.test(token) ? 'jwt' : 'api-key';
  return sessionCookieToken(request) === null ? null : 'session-cookie';
}

/**
 * Runs one passport strategy. A strategy that refuses the credential throws its own 401 (or the cookie's CSRF 403)
 * with the contract's code.
 */
function strategyGuard(strategy: string): IAuthGuard {
  class StrategyGuard extends AuthGuard(strategy) {
    override handleRequest<User = Principal>(error: unknown, user: User | false): User {
      if (error) throw error;
      if (user) return user;
      throw AuthErrors.invalidToken();
    }
  }
  return new StrategyGuard();
}

/**
 * The global guard, default-deny: a route needs a credential unless it is marked `@Public()`, and the principal
 * must hold one of the scopes its `@Authenticated` names (CONTRACT.md sections 2 and 3).
 */
@Injectable()
export class AccessGuard implements CanActivate {
  private readonly guards = {
    'api-key': strategyGuard('api-key'),
    jwt: strategyGuard('jwt'),
    'session-cookie': strategyGuard('session-cookie'),
  };

  constructor(
    private readonly reflector: Reflector,
    private readonly invalidations: InvalidationLog,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    // First, before anything reads a cache for this request.
    this.invalidations.beginRequest();
    const access = routeAccess(this.reflector, context);
    if (access.public) return true;
    const request = context.switchToHttp().getRequest<CredentialRequest & { user: Principal }>();
    const strategy = strategyFor(request);
    if (strategy === null) {
      // Nothing sent, or an Authorization header that is not a Bearer token.
      throw request.headers.authorization === undefined
        ? AuthErrors.missingCredentials()
        : AuthErrors.invalidToken();
    }
    await this.guards[strategy].canActivate(context);
    const { options } = access;
    const principal = request.user;
    if (options.jwtOnly && principal.via !== 'jwt') throw AuthErrors.jwtRequired();
    if (!options.scopes.some((scope) => principal.scopes.includes(scope))) {
      throw AuthErrors.insufficientScope(options.scopes);
    }
    return true;
  }
}
