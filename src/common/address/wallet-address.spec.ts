import { checksumAddress, isWalletAddress } from './wallet-address.js';

describe('wallet addresses', () => {
  const checksummed = '0x52908400098527886E0F7030069857D2E4169EE7';

  it.each([
    [checksummed, true],
    [checksummed.toLowerCase(), true],
    ['0x' + checksummed.slice(2).toUpperCase(), true],
    ['0x52908400098527886E0F7030069857D2E4169Ee7', false],
    ['0x5290840009852788', false],
    ['52908400098527886E0F7030069857D2E4169EE7', false],
    ['0xZZ908400098527886E0F7030069857D2E4169EE7', false],
    [123, false],
    [null, false],
  ])('isWalletAddress(%p) is %p', (value, expected) => {
    expect(isWalletAddress(value)).toBe(expected);
  });

  it('returns the EIP-55 form whatever the input case', () => {
    expect(checksumAddress(checksummed.toLowerCase())).toBe(checksummed);
  });
});
