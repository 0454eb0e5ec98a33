import { ApiError, type ErrorDetails } from '../common/errors/api-error.js';

export const ApiKeyErrors = {
  invalidExpiry: (message: string, details?: ErrorDetails) =>
    ApiError.badRequest('invalid_expiry', message, details),
  notFound: () => ApiError.notFound('api_key_not_found', 'No API key with this id belongs to the caller'),
  scopeNotHeld: (scopes: readonly string[]) =>
    ApiError.forbidden(
      'scope_not_held',
      `A key cannot be given scopes its creator does not hold: ${scopes.join(', ')}`,
      {
        scopes,
      },
    ),
};
