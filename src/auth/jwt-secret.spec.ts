import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { JwtSecretFileError, loadOrCreateJwtSecret, MIN_JWT_SECRET_BYTES } from './jwt-secret.js';

const freshDir = () => mkdtempSync(join(tmpdir(), 'tollgate-secret-'));

describe('loadOrCreateJwtSecret', () => {
  it('creates the secret once, mode 600, leaving no temporary file, and reads it back afterwards', () => {
    const dir = freshDir();
    const secret = loadOrCreateJwtSecret(dir);
    expect(Buffer.byteLength(secret)).toBeGreaterThanOrEqual(MIN_JWT_SECRET_BYTES);
    expect(readdirSync(dir)).toEqual(['jwt-secret']);
    expect(statSync(join(dir, 'jwt-secret')).mode & 0o777).toBe(0o600);
    expect(loadOrCreateJwtSecret(dir)).toBe(secret);
  });

  it.each([
    ['empty', ''],
    ['whitespace only', ' \n'],
    ['31 bytes', 'x'.repeat(31)],
  ])('refuses a stored secret that is %s', (_label, content) => {
    const dir = freshDir();
    writeFileSync(join(dir, 'jwt-secret'), content, { mode: 0o600 });
    expect(() => loadOrCreateJwtSecret(dir)).toThrow(JwtSecretFileError);
    // Refused, not replaced: sessions signed with a previous secret must not silently change meaning.
    expect(readFileSync(join(dir, 'jwt-secret'), 'utf8')).toBe(content);
  });

  it('gives every one of several processes starting at once the same secret', async () => {
    const dir = freshDir();
    // The compiled module (npm test builds first): these are separate processes, as cluster workers are.
    const module = fileURLToPath(new URL('../../dist/src/auth/jwt-secret.js', import.meta.url));
    const script = `import(${JSON.stringify(module)}).then((m) => process.stdout.write(m.loadOrCreateJwtSecret(process.argv[1])))`;
    const outputs = await Promise.all(
      Array.from({ length: 8 }, () =>
        promisify(execFile)(process.execPath, ['--input-type=module', '-e', script, dir]).then(
          (r) => r.stdout,
        ),
      ),
    );
    expect(new Set(outputs).size).toBe(1);
    expect(outputs[0]).toBe(readFileSync(join(dir, 'jwt-secret'), 'utf8'));
    expect(readdirSync(dir)).toEqual(['jwt-secret']);
  });
});
