import type { ExecutionContext } from '@nestjs/common';
import type { Reflector } from '@nestjs/core';
import { AuthErrors } from '../auth.errors.js';
import { AUTHENTICATED, type AuthenticatedOptions } from '../decorators/authenticated.decorator.js';
import { IS_PUBLIC } from '../decorators/public.decorator.js';
import type { Principal } from '../principal.js';

/** What a route requires: nothing (`@Public()`), or the options of its `@Authenticated`. */
export type RouteAccess = { public: true } | { public: false; options: AuthenticatedOptions };

/** A protected route that forgot `@Authenticated` still needs the broadest scope: default-deny. */
const UNDECLARED: AuthenticatedOptions = { scopes: ['FULL'] };

/** The route's access rule, read from its decorators (the handler's, else its controller's). */
export function routeAccess(reflector: Reflector, context: ExecutionContext): RouteAccess {
  const targets = [context.getHandler(), context.getClass()];
  if (reflector.getAllAndOverride<boolean>(IS_PUBLIC, targets)) return { public: true };
  return {
    public: false,
    options: reflector.getAllAndOverride<AuthenticatedOptions>(AUTHENTICATED, targets) ?? UNDECLARED,
  };
}

/**
 * Refuses an authenticated principal the route's `@Authenticated` does not admit, in this order: a session it
 * needs (403 jwt_required), one of its scopes (403 insufficient_scope), an operator (403 operator_required).
 */
export function checkAccess(options: AuthenticatedOptions, principal: Principal): void {
  if (options.jwtOnly && principal.via !== 'jwt') throw AuthErrors.jwtRequired();
  if (!options.scopes.some((scope) => principal.scopes.includes(scope))) {
    throw AuthErrors.insufficientScope(options.scopes);
  }
  if (options.operator && !principal.operator) throw AuthErrors.operatorRequired();
}
