import { type CallHandler, type ExecutionContext, Injectable, type NestInterceptor } from '@nestjs/common';
import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants.js';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum.js';
import type { Observable } from 'rxjs';
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
 */
@Injectable()
export class UnexpectedBodyInterceptor implements NestInterceptor {
  private readonly bodyless = new WeakMap<object, boolean>();

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const body = context.switchToHttp().getRequest<{ body?: unknown }>().body;
    if (body !== undefined && body !== null && typeof body === 'object') {
      const fields = Object.keys(body);
      if (fields.length > 0 && this.isBodyless(context)) {
        const problems = fields.map((field) => ({ field, message: `property ${field} should not exist` }));
        throw ApiError.badRequest('validation_failed', problems.map((p) => p.message).join('; '), {
          fields: problems,
        });
      }
    }
    return next.handle();
  }

  private isBodyless(context: ExecutionContext): boolean {
    const handler = context.getHandler();
    let bodyless = this.bodyless.get(handler);
    if (bodyless === undefined) {
      bodyless = !takesBody(context.getClass(), handler.name);
      this.bodyless.set(handler, bodyless);
    }
    return bodyless;
  }
}
