import { buildSiweMessage } from './siwe-message.js';

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
});
