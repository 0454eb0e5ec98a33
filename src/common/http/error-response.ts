import { HttpException, HttpStatus } from '@nestjs/common';
import { ApiError } from '../errors/api-error.js';

/** The interface's error object. `details.code` is always present. */
export interface ErrorBody {
  error: string;
  details: { code: string; [key: string]: unknown };
}

export interface ErrorResponse {
  status: number;
  body: ErrorBody;
  /** True when the error was not expected: it is logged with the request id and answered with a bare 500. */
  unexpected: boolean;
}

const STATUS_CODES: Record<number, string> = {
  400: 'bad_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  409: 'conflict',
  408: 'request_timeout',
  413: 'payload_too_large',
  414: 'uri_too_long',
  415: 'unsupported_media_type',
  429: 'rate_limited',
  431: 'headers_too_large',
  503: 'service_unavailable',
};

/** Fastify's own errors (body parsing and limits happen before Nest sees the request). */
const FASTIFY_ERRORS: Record<string, { status: number; code: string; message: string }> = {
  FST_ERR_CTP_BODY_TOO_LARGE: {
    status: 413,
    code: 'payload_too_large',
    message: 'Request body is larger than 64 KiB',
  },
  FST_ERR_CTP_INVALID_JSON_BODY: {
    status: 400,
    code: 'invalid_json',
    message: 'Request body is not valid JSON',
  },
  FST_ERR_CTP_EMPTY_JSON_BODY: {
    status: 400,
    code: 'invalid_json',
    message: 'Request body is empty but content-type is application/json',
  },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: {
    status: 415,
    code: 'unsupported_media_type',
    message: 'Request bodies must be JSON (content-type: application/json)',
  },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: {
    status: 400,
    code: 'bad_request',
    message: 'Content-Length does not match the body',
  },
  FST_ERR_CTP_INVALID_TYPE: { status: 400, code: 'bad_request', message: 'Invalid content-type header' },
  FST_ERR_BAD_URL: { status: 400, code: 'bad_request', message: 'Malformed request URL' },
  FST_ERR_ASYNC_CONSTRAINT: { status: 400, code: 'bad_request', message: 'Malformed request' },
};

interface FastifyLikeError {
  code?: unknown;
  statusCode?: unknown;
  name?: unknown;
}

function fastifyError(error: unknown): ErrorResponse | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { code, statusCode, name } = error as FastifyLikeError;
  if (typeof code === 'string' && FASTIFY_ERRORS[code]) {
    const known = FASTIFY_ERRORS[code];
    return {
      status: known.status,
      body: { error: known.message, details: { code: known.code } },
      unexpected: false,
    };
  }
  // JSON syntax errors and prototype-poisoning rejections from the body parser carry a 400 status.
  if (
    statusCode === 400 &&
    (name === 'SyntaxError' || (typeof code === 'string' && !code.startsWith('FST_')))
  ) {
    return {
      status: 400,
      body: { error: 'Request body is not valid JSON', details: { code: 'invalid_json' } },
      unexpected: false,
    };
  }
  // Any other refusal of Fastify's own (router, parsers): its 4xx status, never a 500.
  if (
    typeof code === 'string' &&
    code.startsWith('FST_') &&
    typeof statusCode === 'number' &&
    statusCode >= 400 &&
    statusCode < 500
  ) {
    return {
      status: statusCode,
      body: { error: 'Malformed request', details: { code: STATUS_CODES[statusCode] ?? 'bad_request' } },
      unexpected: false,
    };
  }
  return undefined;
}

/** Maps anything thrown while serving a request to the interface's error object. */
export function toErrorResponse(error: unknown): ErrorResponse {
  if (error instanceof ApiError) {
    return {
      status: error.getStatus(),
      body: { error: error.message, details: { ...error.details, code: error.code } },
      unexpected: false,
    };
  }
  if (error instanceof HttpException) {
    // Nest wraps Fastify's own errors (body parsing, limits) in an HttpException that keeps them as the cause.
    const fromFastify = fastifyError(error.cause);
    if (fromFastify) return fromFastify;
    const status = error.getStatus();
    if (status >= 500) return internal();
    const response = error.getResponse();
    const message =
      typeof response === 'object' &&
      response !== null &&
      typeof (response as { message?: unknown }).message === 'string'
        ? (response as { message: string }).message
        : error.message;
    return {
      status,
      body: { error: message, details: { code: STATUS_CODES[status] ?? 'error' } },
      unexpected: false,
    };
  }
  return fastifyError(error) ?? internal();
}

function internal(): ErrorResponse {
  return {
    status: HttpStatus.INTERNAL_SERVER_ERROR,
    body: { error: 'Internal server error', details: { code: 'internal_error' } },
    unexpected: true,
  };
}

/** The error object as sent: every one names its request (`details.requestId`, also the `x-request-id` header). */
export function withRequestId(body: ErrorBody, requestId: string): ErrorBody {
  return { error: body.error, details: { ...body.details, requestId } };
}
