import { ApiError, type ErrorDetails } from '../common/errors/api-error.js';

export const ApiKeyErrors = {
  invalidExpiry: (message: string, details?: ErrorDetails) =>
    ApiError.badRequest('invalid_expiry', message, details),
  limitReached: (limit: number) =>
    ApiError.badRequest(
      'api_key_limit_reached',
      `A wallet can hold at most ${limit} live API keys: revoke one first (API_KEYS_MAX_PER_WALLET)`,
      { limit },
    ),
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
