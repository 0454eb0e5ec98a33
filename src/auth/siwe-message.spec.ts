import { buildSiweMessage, isWithinTimeBounds } from './siwe-message.js';

const fields = {
  domain: 'app.example.com',
  address: '0x52908400098527886E0F7030069857D2E4169EE7',
  uri: 'https://app.example.com',
  chainId: 1,
  nonce: 'a1B2c3D4e5F6g7H8i9J0k1L2',
  issuedAt: new Date('2026-11-22T01:00:00.000Z'),
  expiresAt: new Date('2026-11-22T01:10:00.000Z'),
};

describe('SIWE message', () => {
  it('is a complete EIP-4361 message', () => {
    const message = buildSiweMessage(fields);
    expect(message).toContain('app.example.com wants you to sign in with your Ethereum account:');
    expect(message).toContain(fields.address);
    expect(message).toContain('URI: https://app.example.com');
    expect(message).toContain('Version: 1');
    expect(message).toContain('Chain ID: 1');
    expect(message).toContain(`Nonce: ${fields.nonce}`);
    expect(message).toContain('Issued At: 2026-11-22T01:00:00.000Z');
    expect(message).toContain('Expiration Time: 2026-11-22T01:10:00.000Z');
  });

  it.each([
    ['2026-11-22T01:05:00.000Z', true],
    ['2026-11-22T00:59:45.000Z', true], // 15 s before issued-at: within the skew
    ['2026-11-22T00:59:00.000Z', false],
    ['2026-11-22T01:10:20.000Z', true], // 20 s after expiry: within the skew
    ['2026-11-22T01:11:00.000Z', false],
  ])('at %s the time bounds hold: %p', (now, expected) => {
    expect(isWithinTimeBounds(buildSiweMessage(fields), new Date(now))).toBe(expected);
  });

  it('fails closed on unparseable dates', () => {
    const message = buildSiweMessage(fields).replace(
      'Expiration Time: 2026-11-22T01:10:00.000Z',
      'Expiration Time: soon',
    );
    expect(isWithinTimeBounds(message, new Date('2026-11-22T01:05:00.000Z'))).toBe(false);
    expect(isWithinTimeBounds('not a siwe message', new Date())).toBe(false);
  });
});
