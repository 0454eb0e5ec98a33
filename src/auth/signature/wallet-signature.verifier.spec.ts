import {
  type Hex,
  parseSignature,
  serializeCompactSignature,
  serializeErc6492Signature,
  signatureToCompactSignature,
  zeroAddress,
} from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { SignerRecovery } from './signer-recovery.js';
import { isHexSignature, WalletSignatureVerifier } from './wallet-signature.verifier.js';

describe('isHexSignature', () => {
  it.each([
    ['a 65-byte signature', `0x${'ab'.repeat(65)}`],
    ['a 64-byte compact signature', `0x${'ab'.repeat(64)}`],
    ['mixed-case hex', `0x${'aB'.repeat(65)}`],
    ['a long smart-wallet signature', `0x${'00'.repeat(10_000)}`],
  ])('accepts %s', (_label, value) => {
    expect(isHexSignature(value)).toBe(true);
  });

  it.each([
    ['an empty string', ''],
    ['a bare prefix', '0x'],
    ['missing 0x', 'ab'.repeat(65)],
    ['an odd number of hex digits', `0x${'ab'.repeat(65)}a`],
    ['non-hex characters', `0x${'zz'.repeat(65)}`],
    ['too short', `0x${'ab'.repeat(63)}`],
    ['too long', `0x${'00'.repeat(10_001)}`],
    ['an uppercase prefix', `0X${'ab'.repeat(65)}`],
  ])('rejects %s', (_label, value) => {
    expect(isHexSignature(value)).toBe(false);
  });
});

describe.each([
  ['on the calling thread', 0],
  ['on recovery threads', 2],
])('WalletSignatureVerifier without an RPC endpoint, signers recovered %s', (_label, threads) => {
  const recovery = new SignerRecovery({ threads });
  const verifier = new WalletSignatureVerifier({ timeoutMs: 1000, recovery });
  afterAll(() => recovery.close());
  const owner = privateKeyToAccount(generatePrivateKey());
  const message = 'nonce-123';

  it('accepts the signer, whatever the address casing', async () => {
    const signature = await owner.signMessage({ message });
    await expect(verifier.verify({ address: owner.address, message, signature })).resolves.toBe('valid');
    const lower = owner.address.toLowerCase() as Hex;
    await expect(verifier.verify({ address: lower, message, signature })).resolves.toBe('valid');
  });

  it('accepts an EIP-2098 compact signature', async () => {
    const compact = serializeCompactSignature(
      signatureToCompactSignature(parseSignature(await owner.signMessage({ message }))),
    );
    await expect(verifier.verify({ address: owner.address, message, signature: compact })).resolves.toBe(
      'valid',
    );
  });

  it('rejects another signer and another message', async () => {
    const stranger = privateKeyToAccount(generatePrivateKey());
    const byStranger = await stranger.signMessage({ message });
    await expect(verifier.verify({ address: owner.address, message, signature: byStranger })).resolves.toBe(
      'invalid',
    );
    const otherMessage = await owner.signMessage({ message: 'nonce-456' });
    await expect(verifier.verify({ address: owner.address, message, signature: otherMessage })).resolves.toBe(
      'invalid',
    );
  });

  it('leaves signatures only a chain could judge unverifiable', async () => {
    const unrecoverable = `0x${'00'.repeat(64)}1b` as Hex;
    await expect(
      verifier.verify({ address: owner.address, message, signature: unrecoverable }),
    ).resolves.toBe('unverifiable');
    const wrapped = serializeErc6492Signature({
      address: privateKeyToAccount(generatePrivateKey()).address,
      data: '0xdeadbeef',
      signature: await owner.signMessage({ message }),
    });
    await expect(verifier.verify({ address: owner.address, message, signature: wrapped })).resolves.toBe(
      'unverifiable',
    );
  });

  it('rejects malformed input instead of throwing', async () => {
    const signature = await owner.signMessage({ message });
    await expect(verifier.verify({ address: '0x1234', message, signature })).resolves.toBe('invalid');
    await expect(verifier.verify({ address: owner.address, message, signature: '0xzz' })).resolves.toBe(
      'invalid',
    );
    await expect(verifier.verify({ address: zeroAddress, message, signature })).resolves.toBe('invalid');
  });
});
