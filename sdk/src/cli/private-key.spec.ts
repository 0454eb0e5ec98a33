import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readPrivateKey } from './private-key.js';
import { UsageError } from './settings.js';

describe('tollgate private key', () => {
  const directory = mkdtempSync(join(tmpdir(), 'tollgate-key-'));
  const file = (key: string): string => {
    const path = join(directory, 'key');
    writeFileSync(path, `${key}\n`);
    return path;
  };

  it('reads a key from the file', async () => {
    const key = `0x${'11'.repeat(32)}`;
    await expect(readPrivateKey(file(key))).resolves.toBe(key);
  });

  it.each([
    ['zero', `0x${'0'.repeat(64)}`, /out of range/],
    ['the curve order', '0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141', /out of range/],
    ['above the curve order', `0x${'f'.repeat(64)}`, /out of range/],
    ['too short', `0x${'ab'.repeat(31)}`, /64 hex digits/],
  ])('refuses a key that is %s with one line that never quotes it', async (_case, key, reason) => {
    const thrown = await readPrivateKey(file(key)).catch((error: unknown) => error);
    expect(thrown).toBeInstanceOf(UsageError);
    const { message } = thrown as Error;
    expect(message).toMatch(reason);
    expect(message).not.toContain(key.slice(2, 12));
    expect(message).not.toContain('\n');
  });
});
