import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { ApiHeader } from '@nestjs/swagger';
import { IDEMPOTENCY_KEY_MAX_LENGTH, parseIdempotencyKey } from './idempotent-request.js';

/** The request's `Idempotency-Key` header, validated (400 when empty or too long), or undefined. */
export const IdempotencyKey = createParamDecorator((_data: unknown, context: ExecutionContext) => {
  const request = context
    .switchToHttp()
    .getRequest<{ headers: Record<string, string | string[] | undefined> }>();
  return parseIdempotencyKey(request.headers['idempotency-key']);
});

/** Documents the optional `Idempotency-Key` header of a change route. */
export function ApiIdempotencyKey(): MethodDecorator {
  return ApiHeader({
    name: 'Idempotency-Key',
    required: false,
    description:
      'Makes a retry safe. Within 24 h, the same key from the same caller (the wallet for a session, the key for an ' +
      'API key) with the same request replays the first response, status and body, without a second effect; with ' +
      'a different request it is 400 `idempotency_key_reused`; while the first is still running, 409 ' +
      '`idempotency_in_progress`. A UUID per logical operation is a good key.',
    schema: {
      type: 'string',
      minLength: 1,
      maxLength: IDEMPOTENCY_KEY_MAX_LENGTH,
      example: '8e0b8f5e-2f4c-4c5e-9a55-2d1c0f6f7a10',
    },
  });
}
