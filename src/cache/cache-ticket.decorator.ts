import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { InvalidationTicket, TicketCarrier } from './invalidation-log.service.js';

/**
 * The request's cache ticket (given by the access guard when the request arrived), for a handler whose service reads
 * a cache: passed on, the request passes the invalidation barrier once, not once per cache.
 */
export const CacheTicket = createParamDecorator(
  (_data: unknown, context: ExecutionContext): InvalidationTicket | undefined =>
    context.switchToHttp().getRequest<TicketCarrier>().cacheTicket,
);
