import { BadRequestException, HttpException, NotFoundException } from '@nestjs/common';
import { ApiError } from '../errors/api-error.js';
import { toErrorResponse } from './error-response.js';

describe('toErrorResponse', () => {
  it('writes an ApiError as its status, message and code, keeping its details', () => {
    expect(
      toErrorResponse(ApiError.conflict('idempotency_in_progress', 'Still running', { retryAfter: 1 })),
    ).toEqual({
      status: 409,
      body: { error: 'Still running', details: { code: 'idempotency_in_progress', retryAfter: 1 } },
      unexpected: false,
    });
  });

  it('gives Nest exceptions a stable code', () => {
    expect(toErrorResponse(new NotFoundException('Cannot GET /x')).body).toEqual({
      error: 'Cannot GET /x',
      details: { code: 'not_found' },
    });
  });

  it("maps Fastify's parser errors kept as the cause", () => {
    const cause = Object.assign(new Error('bad json'), {
      code: 'FST_ERR_CTP_INVALID_JSON_BODY',
      statusCode: 400,
    });
    const wrapped = new BadRequestException('Body is not valid JSON', { cause });
    expect(toErrorResponse(wrapped)).toMatchObject({
      status: 400,
      body: { details: { code: 'invalid_json' } },
    });
    const tooLarge = Object.assign(new Error('too large'), {
      code: 'FST_ERR_CTP_BODY_TOO_LARGE',
      statusCode: 413,
    });
    expect(toErrorResponse(new HttpException('x', 413, { cause: tooLarge })).status).toBe(413);
  });

  it("answers Fastify's own refusals with their 4xx status: 415 for a body that is not JSON", () => {
    const fastifyError = (code: string, statusCode: number) =>
      Object.assign(new Error('detail from fastify'), { code, statusCode });
    expect(toErrorResponse(fastifyError('FST_ERR_CTP_INVALID_MEDIA_TYPE', 415))).toMatchObject({
      status: 415,
      body: { details: { code: 'unsupported_media_type' } },
    });
    expect(toErrorResponse(fastifyError('FST_ERR_BAD_URL', 400))).toMatchObject({
      status: 400,
      body: { details: { code: 'bad_request' } },
    });
    expect(toErrorResponse(fastifyError('FST_ERR_SOMETHING_NEW', 414))).toEqual({
      status: 414,
      body: { error: 'Malformed request', details: { code: 'uri_too_long' } },
      unexpected: false,
    });
    expect(toErrorResponse(fastifyError('FST_ERR_SOMETHING_BROKEN', 500)).status).toBe(500);
  });

  it('answers an unreachable database with a bare 500: 503 is reserved to /health', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    expect(toErrorResponse(refused)).toMatchObject({
      status: 500,
      body: { details: { code: 'internal_error' } },
    });
  });

  it('hides anything unexpected behind a bare 500 and flags it for logging', () => {
    const leaky = new Error(
      'duplicate key value violates unique constraint "ux_secret" at /srv/app/src/x.ts:12',
    );
    const response = toErrorResponse(leaky);
    expect(response).toEqual({
      status: 500,
      body: { error: 'Internal server error', details: { code: 'internal_error' } },
      unexpected: true,
    });
    expect(JSON.stringify(response.body)).not.toContain('ux_secret');
    expect(toErrorResponse(new HttpException('boom', 502)).status).toBe(500);
  });
});
