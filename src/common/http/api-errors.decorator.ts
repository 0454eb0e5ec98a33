import { DECORATORS, getSchemaPath } from '@nestjs/swagger';
import { ErrorResponseDto } from './error-response.dto.js';

const MEANING: Record<number, string> = {
  400: 'Invalid input',
  401: 'Missing, invalid, expired or revoked credential',
  402: 'The payment was refused; nothing was credited',
  403: 'Credential lacks the scope or the right on that address',
  404: 'Not found',
  409: 'Conflict',
  413: 'Request body over 64 KiB',
  415: 'Request body is not JSON: any `Content-Type` but `application/json` (forms, multipart, text) is refused',
  429: 'Too many requests',
  503: 'A dependency could not be reached; nothing was changed',
};

export type ErrorStatus = 400 | 401 | 402 | 403 | 404 | 409 | 413 | 415 | 429 | 503;

/** The error codes declared so far on one handler, by status: every ApiErrors on a route adds to them. */
const ERROR_CODES = 'tollgate:error-codes';

interface ErrorSchema {
  allOf: [
    { $ref: string },
    {
      type: 'object';
      required: string[];
      properties: { details: { type: 'object'; required: string[]; properties: Record<string, object> } };
    },
  ];
}

/** The interface's error object, with `details.code` narrowed to the codes this status can carry. */
function errorSchema(codes: readonly string[]): ErrorSchema {
  return {
    allOf: [
      { $ref: getSchemaPath(ErrorResponseDto) },
      {
        type: 'object',
        required: ['details'],
        properties: {
          details: {
            type: 'object',
            required: ['code'],
            properties: { code: { type: 'string', enum: codes } },
          },
        },
      },
    ],
  };
}

function errorResponseParts(status: ErrorStatus, codes: readonly string[]) {
  const listed = codes.map((code) => `\`${code}\``).join(', ');
  return { description: `${MEANING[status]}. \`details.code\`: ${listed}.`, schema: errorSchema(codes) };
}

/** An error response as it appears in the built document (for additions made after the routes are read). */
export function errorResponse(status: ErrorStatus, codes: readonly string[]) {
  const { description, schema } = errorResponseParts(status, [...new Set(codes)]);
  return { description, content: { 'application/json': { schema } } };
}

/**
 * Documents a route's error responses with the interface's error object and the `details.code` values each status
 * can carry, e.g. `@ApiErrors({ 400: ['validation_failed'], 401: ['invalid_signature'] })`. Several ApiErrors on
 * one route (the route's own and @Authenticated's) merge: one response per status, whose `details.code` is an
 * enum of every code declared for it, so a generated client can switch on them.
 */
export function ApiErrors(codes: Partial<Record<ErrorStatus, string[]>>): MethodDecorator {
  return (_target, _key, descriptor) => {
    const handler = descriptor.value as object;
    const declared: Record<string, string[]> = { ...Reflect.getMetadata(ERROR_CODES, handler) };
    const responses: Record<string, unknown> = { ...Reflect.getMetadata(DECORATORS.API_RESPONSE, handler) };
    for (const [status, list] of Object.entries(codes)) {
      const merged = [...new Set([...(declared[status] ?? []), ...list])];
      declared[status] = merged;
      const { description, schema } = errorResponseParts(Number(status) as ErrorStatus, merged);
      responses[status] = { description, schema };
    }
    Reflect.defineMetadata(ERROR_CODES, declared, handler);
    Reflect.defineMetadata(DECORATORS.API_RESPONSE, responses, handler);
    return descriptor;
  };
}
