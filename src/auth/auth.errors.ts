import { ApiError } from '../common/errors/api-error.js';

/** The auth module's error codes, each with its HTTP status. */
export const AuthErrors = {
  missingCredentials: () =>
    ApiError.unauthorized(
      'missing_credentials',
      'Authentication required: send a Bearer token or the session cookie',
    ),
  invalidToken: () => ApiError.unauthorized('invalid_token', 'The token is invalid'),
  tokenExpired: () => ApiError.unauthorized('token_expired', 'The token has expired'),
  tokenRevoked: () => ApiError.unauthorized('token_revoked', 'The token has been revoked (logged out)'),
  invalidApiKey: () => ApiError.unauthorized('invalid_api_key', 'The API key is invalid'),
  apiKeyRevoked: () => ApiError.unauthorized('api_key_revoked', 'The API key has been revoked'),
  apiKeyExpired: () => ApiError.unauthorized('api_key_expired', 'The API key has expired'),
  challengeNotFound: () =>
    ApiError.unauthorized(
      'challenge_not_found',
      'No usable login challenge for this address: request a new nonce (it may have expired or been used)',
    ),
  invalidSignature: () =>
    ApiError.unauthorized('invalid_signature', 'The signature does not match the address and the challenge'),
  signatureUnverifiable: () =>
    ApiError.unauthorized(
      'signature_unverifiable',
      'The smart-wallet signature could not be checked against the chain; try again later',
    ),
  insufficientScope: (required: readonly string[]) =>
    ApiError.forbidden('insufficient_scope', `This route needs one of the scopes: ${required.join(', ')}`, {
      requiredScopes: required,
    }),
  operatorRequired: () =>
    ApiError.forbidden('operator_required', 'This route is for operators (OPERATOR_ADDRESSES) only'),
  jwtRequired: () =>
    ApiError.forbidden('jwt_required', 'This route needs a wallet session (JWT), not an API key'),
  csrfOriginMismatch: () =>
    ApiError.forbidden(
      'csrf_origin_mismatch',
      'Cookie-authenticated requests that change state must come from an allowed Origin',
    ),
  addressForbidden: () =>
    ApiError.forbidden('address_forbidden', 'This credential may only act on its own wallet address'),
};
