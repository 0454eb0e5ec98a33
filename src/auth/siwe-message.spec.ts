import { buildSiweMessage } from './siwe-message.js';

const fields = {
  domain: 'app.example.com',
  address: '0x52908400098527886E0F7030069857D2E4169EE7' as const,
  uri: 'https://app.example.com',
  chainId: 1,
  nonce: 'a1B2c3D4e5F6g7H8i9J0k1L2',
  issuedAt: new Date('2026-11-22T01:00:00.000Z'),
  expiresAt: new Date('2026-11-22T01:10:00.000Z'),
};

describe('SIWE message', () => {
  // The text wallets sign and clients may have pinned: any change to it, a library's included, shows here.
  it('is this exact EIP-4361 text', () => {
    expect(buildSiweMessage(fields)).toBe(
      [
        'app.example.com wants you to sign in with your Ethereum account:',
        '0x52908400098527886E0F7030069857D2E4169EE7',
        '',
        'Sign in to Tollgate.',
        '',
        'URI: https://app.example.com',
        'Version: 1',
        'Chain ID: 1',
        'Nonce: a1B2c3D4e5F6g7H8i9J0k1L2',
        'Issued At: 2026-11-22T01:00:00.000Z',
        'Expiration Time: 2026-11-22T01:10:00.000Z',
      ].join('\n'),
    );
  });

  it.each([
    ['localhost:3000', 'http://localhost:3000', 31337],
    ['127.0.0.1:8080', 'http://127.0.0.1:8080/login', 8453],
    ['pay.example.org:8443', 'https://pay.example.org:8443/app?from=wallet', 10],
  ])('carries domain %s, URI %s and chain %i as given', (domain, uri, chainId) => {
    expect(buildSiweMessage({ ...fields, domain, uri, chainId })).toBe(
      `${domain} wants you to sign in with your Ethereum account:\n` +
        '0x52908400098527886E0F7030069857D2E4169EE7\n\n' +
        'Sign in to Tollgate.\n\n' +
        `URI: ${uri}\nVersion: 1\nChain ID: ${chainId}\nNonce: a1B2c3D4e5F6g7H8i9J0k1L2\n` +
        'Issued At: 2026-11-22T01:00:00.000Z\nExpiration Time: 2026-11-22T01:10:00.000Z',
    );
  });

  it.each(['localhost', 'localhost:3000', '10.1.2.3', 'app.example.com', 'xn--bcher-kva.example:8443'])(
    'is built for domain %s, a form AUTH_DOMAIN accepts',
    (domain) => {
      expect(buildSiweMessage({ ...fields, domain })).toMatch(
        new RegExp(`^${domain.replace(/\./g, '\\.')} wants`),
      );
    },
  );

  // Why AUTH_DOMAIN is checked at start: these would fail every sign-in.
  it.each(['tollgate:3000', '[::1]:3000'])('cannot be built for domain %s', (domain) => {
    expect(() => buildSiweMessage({ ...fields, domain })).toThrow(/domain/);
  });
});
