import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants.js';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum.js';
import { ApiError } from '../errors/api-error.js';

/** Whether a handler declares a `@Body()` parameter (Nest keeps its parameters as `"<type>:<index>"` keys). */
function takesBody(controller: object, handler: string): boolean {
  const parameters = (Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, handler) ?? {}) as object;
  return Object.keys(parameters).some((key) => key.split(':')[0] === String(RouteParamtypes.BODY));
}

/**
 * A route that takes no body accepts none or `{}`: any field is unknown to it, refused like an unknown field of a
 * DTO (the global pipe validates only declared bodies). That `bodyProblem` already refused every body that is not
 * an object, before authentication, is what lets this one look only at keys.
 *
 * A guard, registered after the access guard (so a caller without a credential still gets 401 first), rather than
 * an interceptor: a single global interceptor makes Nest run every request through an rxjs pipeline, which costs
 * a large share of a bare route's CPU (docs/decisions/2026-11-24-no-global-interceptor.md).
 */
@Injectable()
export class UnexpectedBodyGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const body = context.switchToHttp().getRequest<{ body?: unknown }>().body;
    if (
      body === undefined ||
      body === null ||
      typeof body !== 'object' ||
      takesBody(context.getClass(), context.getHandler().name)
    )
      return true;
    const fields = Object.keys(body);
    if (fields.length > 0) {
      const problems = fields.map((field) => ({ field, message: `property ${field} should not exist` }));
      throw ApiError.badRequest('validation_failed', problems.map((p) => p.message).join('; '), {
        fields: problems,
      });
    }
    return true;
  }
}
