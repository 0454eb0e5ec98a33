import { applyDecorators, SetMetadata } from '@nestjs/common';
import { RouteConfig } from '@nestjs/platform-fastify';

export const IS_PUBLIC = 'tollgate:public';

export interface PublicOptions {
  /** false: exempt from RATE_LIMIT_PER_MINUTE (health probes, which orchestrators call on their own schedule). */
  rateLimited?: boolean;
}

/**
 * Opts a route out of the global default-deny authentication guard. The Fastify route is marked too, so the rate
 * limiter (which runs before Nest) counts it per client address, whatever credential is presented.
 */
export const Public = ({ rateLimited = true }: PublicOptions = {}): MethodDecorator & ClassDecorator =>
  applyDecorators(
    SetMetadata(IS_PUBLIC, true),
    RouteConfig(rateLimited ? { public: true } : { public: true, rateLimit: false }),
  );
