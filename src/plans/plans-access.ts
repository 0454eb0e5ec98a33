import { Injectable, UseGuards, type CanActivate, type ExecutionContext } from '@nestjs/common';
import type { Principal } from '../auth/principal.js';
import { PlanErrors } from './plans.errors.js';

/**
 * Who may manage plans: an operator (OPERATOR_ADDRESSES) through a session, or through an API key with FULL that an
 * operator created (the routes require FULL; a session carries every scope). A plan is the whole service's price
 * list, not one wallet's, so no address rule applies. Runs after the access guard and before validation, so a
 * non-operator learns nothing about the body's rules. The one place plans check it: an `operator` option of
 * `@Authenticated` replaces it.
 */
@Injectable()
class OperatorOnlyGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const principal = context.switchToHttp().getRequest<{ user?: Principal }>().user;
    if (!principal?.operator) throw PlanErrors.operatorRequired();
    return true;
  }
}

/** On a route that also carries `@Authenticated`: only operators pass (403 `operator_required`). */
export const OperatorOnly = (): MethodDecorator => UseGuards(OperatorOnlyGuard);
