import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiBearerAuth, ApiCookieAuth, ApiExtension } from '@nestjs/swagger';
import { ApiErrors } from '../../common/http/api-errors.decorator.js';
import type { Scope } from '../scopes.js';

export const AUTHENTICATED = 'tollgate:authenticated';

export interface AuthenticatedOptions {
  /** Any one of these passes. */
  scopes: readonly Scope[];
  /** Only a wallet session (JWT) passes, never an API key (logout). */
  jwtOnly?: boolean;
  /**
   * Only an operator passes (OPERATOR_ADDRESSES, or an API key an operator created); anyone else: 403
   * `operator_required`. For a route that is wholly the operator's; a route anyone may call for their own address
   * and an operator for any decides per address instead (`src/auth/access/address-access.ts`).
   */
  operator?: boolean;
}

/**
 * Declares a protected route once: the metadata the guards enforce, and the same facts in OpenAPI (security
 * schemes, `x-required-scopes`, the 401/403 responses), so the docs cannot drift from enforcement.
 */
export function Authenticated(options: AuthenticatedOptions): MethodDecorator {
  const security = options.jwtOnly
    ? [ApiBearerAuth('jwt'), ApiCookieAuth('cookie')]
    : [ApiBearerAuth('jwt'), ApiBearerAuth('apiKey'), ApiCookieAuth('cookie')];
  return applyDecorators(
    SetMetadata(AUTHENTICATED, options),
    ...security,
    ApiExtension('x-required-scopes', [...options.scopes]),
    ...(options.jwtOnly ? [ApiExtension('x-jwt-only', true)] : []),
    ...(options.operator ? [ApiExtension('x-operator-only', true)] : []),
    ApiErrors({
      401: [
        'missing_credentials',
        'invalid_token',
        'token_expired',
        'token_revoked',
        'invalid_api_key',
        'api_key_revoked',
        'api_key_expired',
      ],
      403: [
        'insufficient_scope',
        'csrf_origin_mismatch',
        ...(options.jwtOnly ? ['jwt_required'] : []),
        ...(options.operator ? ['operator_required'] : []),
      ],
    }),
  );
}
