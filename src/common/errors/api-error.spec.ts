import { HttpStatus } from '@nestjs/common';
import { ApiError } from './api-error.js';

describe('ApiError', () => {
  it('carries status, code and details', () => {
    const error = ApiError.forbidden('address_forbidden', 'Not yours', { address: '0xabc' });
    expect(error.getStatus()).toBe(HttpStatus.FORBIDDEN);
    expect(error.code).toBe('address_forbidden');
    expect(error.details).toEqual({ address: '0xabc' });
    expect(error.message).toBe('Not yours');
  });

  it('refuses a detail named like a reserved key, at compile time and when made', () => {
    // @ts-expect-error: `code` is the error's own.
    expect(() => ApiError.conflict('taken', 'Taken', { code: 'other' })).toThrow(
      /reserved detail key\(s\) code/,
    );
    // @ts-expect-error: `requestId` is the request's.
    expect(() => ApiError.notFound('gone', 'Gone', { requestId: 'x' })).toThrow(/requestId/);
    const loose: Record<string, unknown> = { code: 'other', requestId: 'x' };
    expect(() => ApiError.badRequest('bad', 'Bad', loose)).toThrow(/code, requestId/);
    expect(ApiError.badRequest('bad', 'Bad', { field: 'code' }).details).toEqual({ field: 'code' });
  });
});
