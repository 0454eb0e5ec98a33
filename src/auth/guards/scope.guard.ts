import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthErrors } from '../auth.errors.js';
import type { Principal } from '../principal.js';
import { routeAccess } from './route-access.js';

/** Runs after authentication: the principal must hold one of the route's scopes (CONTRACT.md section 3). */
@Injectable()
export class ScopeGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    const access = routeAccess(this.reflector, context);
    if (access.public) return true;
    const { options } = access;
    const principal = context.switchToHttp().getRequest<{ user: Principal }>().user;
    if (options.jwtOnly && principal.via !== 'jwt') throw AuthErrors.jwtRequired();
    if (!options.scopes.some((scope) => principal.scopes.includes(scope))) {
      throw AuthErrors.insufficientScope(options.scopes);
    }
    return true;
  }
}
