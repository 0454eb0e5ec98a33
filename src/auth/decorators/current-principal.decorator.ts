import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { Principal } from '../principal.js';

/** The authenticated caller of a protected route (set by the authentication guard). */
export const CurrentPrincipal = createParamDecorator(
  (_data: unknown, context: ExecutionContext): Principal => {
    const request = context.switchToHttp().getRequest<{ user?: Principal }>();
    if (!request.user) throw new Error('CurrentPrincipal used on a route without @Authenticated');
    return request.user;
  },
);
