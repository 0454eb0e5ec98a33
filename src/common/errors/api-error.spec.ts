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
});
