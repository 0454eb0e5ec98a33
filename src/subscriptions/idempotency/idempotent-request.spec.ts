import { ApiError } from '../../common/errors/api-error.js';
import type { Principal } from '../../auth/principal.js';
import { idempotencyPrincipal, parseIdempotencyKey, requestFingerprint } from './idempotent-request.js';

const ADDRESS = '0x52908400098527886E0F7030069857D2E4169EE7';

describe('parseIdempotencyKey', () => {
  it('accepts a key of 1 to 255 characters as is, and no header at all', () => {
    expect(parseIdempotencyKey(undefined)).toBeUndefined();
    expect(parseIdempotencyKey('k')).toBe('k');
    expect(parseIdempotencyKey(' Key-1 ')).toBe(' Key-1 ');
    expect(parseIdempotencyKey('x'.repeat(255))).toBe('x'.repeat(255));
  });

  it.each([
    ['empty', ''],
    ['256 characters', 'x'.repeat(256)],
    ['sent twice', ['a', 'b']],
  ])('refuses a key %s with 400 validation_failed', (_name, header) => {
    let thrown: unknown;
    try {
      parseIdempotencyKey(header);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ApiError);
    expect((thrown as ApiError).getStatus()).toBe(400);
    expect((thrown as ApiError).code).toBe('validation_failed');
    expect((thrown as ApiError).details).toEqual({
      fields: [{ field: 'Idempotency-Key', message: expect.any(String) }],
    });
  });
});

describe('idempotencyPrincipal', () => {
  const base = { address: ADDRESS, scopes: [], operator: false } as const;

  it('scopes a session key to the wallet, whatever the spelling of its address', () => {
    const principal: Principal = { ...base, via: 'jwt', tokenId: 'a' };
    expect(idempotencyPrincipal(principal)).toBe(`wallet:${ADDRESS.toLowerCase()}`);
  });

  it('scopes an API key request to the key, not to the wallet behind it', () => {
    const principal: Principal = { ...base, via: 'api_key', keyId: 'key-1' };
    expect(idempotencyPrincipal(principal)).toBe('api_key:key-1');
  });
});

describe('requestFingerprint', () => {
  it('is a SHA-256 hex digest', () => {
    expect(requestFingerprint('renew', { address: 'a' })).toMatch(/^[0-9a-f]{64}$/);
  });

  it('ignores key order and absent fields, at every depth', () => {
    expect(
      requestFingerprint('cancel', {
        address: 'a',
        immediate: true,
        nested: { x: 1, y: [1, { b: 2, a: 1 }] },
      }),
    ).toBe(
      requestFingerprint('cancel', {
        nested: { y: [1, { a: 1, b: 2 }], x: 1 },
        immediate: true,
        address: 'a',
        gone: undefined,
      }),
    );
  });

  it('tells apart operations, values, types and array order', () => {
    const fingerprints = [
      requestFingerprint('renew', { address: 'a' }),
      requestFingerprint('cancel', { address: 'a' }),
      requestFingerprint('renew', { address: 'b' }),
      requestFingerprint('renew', { address: null }),
      requestFingerprint('renew', {}),
      requestFingerprint('cancel', { immediate: true }),
      requestFingerprint('cancel', { immediate: 'true' }),
      requestFingerprint('renew', { list: [1, 2] }),
      requestFingerprint('renew', { list: [2, 1] }),
    ];
    expect(new Set(fingerprints).size).toBe(fingerprints.length);
  });
});
