import { applyDecorators } from '@nestjs/common';
import { ApiResponse } from '@nestjs/swagger';
import { ErrorResponseDto } from './error-response.dto.js';

const MEANING: Record<number, string> = {
  400: 'Invalid input',
  401: 'Missing, invalid, expired or revoked credential',
  402: 'The payment was refused; nothing was credited',
  403: 'Credential lacks the scope or the right on that address',
  404: 'Not found',
  409: 'Conflict',
  413: 'Request body over 64 KiB',
  503: 'A dependency could not be reached; nothing was changed',
};

/**
 * Documents a route's error responses with the interface's error object and the `details.code` values each status
 * can carry, e.g. `@ApiErrors({ 400: ['validation_failed'], 401: ['invalid_signature'] })`.
 */
export function ApiErrors(
  codes: Partial<Record<400 | 401 | 402 | 403 | 404 | 409 | 413 | 503, string[]>>,
): MethodDecorator {
  return applyDecorators(
    ...Object.entries(codes).map(([status, list]) =>
      ApiResponse({
        status: Number(status),
        type: ErrorResponseDto,
        description: `${MEANING[Number(status)]}. \`details.code\`: ${list!.map((code) => `\`${code}\``).join(', ')}.`,
      }),
    ),
  );
}
