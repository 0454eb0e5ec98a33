import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthErrors } from '../auth.errors.js';
import { AUTHENTICATED, type AuthenticatedOptions } from '../decorators/authenticated.decorator.js';
import { IS_PUBLIC } from '../decorators/public.decorator.js';
import type { Principal } from '../principal.js';

/** A protected route that forgot `@Authenticated` still needs the broadest scope: default-deny. */
const UNDECLARED: AuthenticatedOptions = { scopes: ['FULL'] };

/** Runs after authentication: the principal must hold one of the route's scopes (CONTRACT.md section 3). */
@Injectable()
export class ScopeGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, targets)) return true;
    const options =
      this.reflector.getAllAndOverride<AuthenticatedOptions>(AUTHENTICATED, targets) ?? UNDECLARED;
    const principal = context.switchToHttp().getRequest<{ user: Principal }>().user;
    if (options.jwtOnly && principal.via !== 'jwt') throw AuthErrors.jwtRequired();
    if (!options.scopes.some((scope) => principal.scopes.includes(scope))) {
      throw AuthErrors.insufficientScope(options.scopes);
    }
    return true;
  }
}
