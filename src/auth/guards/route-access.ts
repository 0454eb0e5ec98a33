import type { ExecutionContext } from '@nestjs/common';
import type { Reflector } from '@nestjs/core';
import { AUTHENTICATED, type AuthenticatedOptions } from '../decorators/authenticated.decorator.js';
import { IS_PUBLIC } from '../decorators/public.decorator.js';

/** What a route requires: nothing (`@Public()`), or the options of its `@Authenticated`. */
export type RouteAccess = { public: true } | { public: false; options: AuthenticatedOptions };

/** A protected route that forgot `@Authenticated` still needs the broadest scope: default-deny. */
const UNDECLARED: AuthenticatedOptions = { scopes: ['FULL'] };

const byHandler = new WeakMap<object, RouteAccess>();

/**
 * The route's access rule, read from its decorators once per handler: metadata never changes after bootstrap, and
 * both guards run on every request.
 */
export function routeAccess(reflector: Reflector, context: ExecutionContext): RouteAccess {
  const handler = context.getHandler();
  let access = byHandler.get(handler);
  if (access === undefined) {
    const targets = [handler, context.getClass()];
    access = reflector.getAllAndOverride<boolean>(IS_PUBLIC, targets)
      ? { public: true }
      : {
          public: false,
          options: reflector.getAllAndOverride<AuthenticatedOptions>(AUTHENTICATED, targets) ?? UNDECLARED,
        };
    byHandler.set(handler, access);
  }
  return access;
}
