import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const MAIN = fileURLToPath(new URL('../dist/src/main.js', import.meta.url));

/** Runs the built service until it exits (it must, before it would open the database) and returns its output. */
function runUntilExit(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, [MAIN], {
    env: {
      PATH: process.env.PATH,
      NODE_ENV: 'development',
      // Nothing listens there: the service must stop before it ever connects.
      DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none',
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, output })));
}

describe('secrets at start', () => {
  it.each([
    ['empty', ''],
    ['too short', 'short-secret\n'],
  ])('refuses to start on a stored JWT secret that is %s', async (_label, content) => {
    const dataDir = mkdtempSync(join(tmpdir(), 'tollgate-secret-'));
    writeFileSync(join(dataDir, 'jwt-secret'), content, { mode: 0o600 });
    const { code, output } = await runUntilExit({ DATA_DIR: dataDir, WEB_CONCURRENCY: '2' });
    expect(code).toBe(78);
    expect(output).toContain('jwt-secret holds a');
    expect(output).toContain('at least 32 bytes');
  });

  it.each([
    ['the compose placeholder', 'CHANGE-ME-placeholder-jwt-secret-not-for-real-use'],
    ['the benchmark secret', 'bench-secret-that-is-at-least-32-bytes-long'],
    [
      "the API description's example webhook secret",
      'whsec_Q2xhcmsgS2VudCBpcyBTdXBlcm1hbiBhbmQgc2hlIGtub3dzIGl0IQ==',
    ],
    ['a low-entropy secret', 'abababababababababababababababababababab'],
    ['a counting secret', '0123456789'.repeat(4)],
    ['a word and a sequence, twice', 'Password1234567890!Password1234567890!'],
    ['a secret under 32 bytes', 'Zq8vN2xLp4'],
  ])('refuses to start in production with %s', async (_label, secret) => {
    const { code, output } = await runUntilExit({ NODE_ENV: 'production', JWT_SECRET: secret });
    expect(code).toBe(78);
    expect(output).toMatch(/JWT_SECRET: /);
  });
});

describe('development-only webhook settings at start', () => {
  const production = {
    NODE_ENV: 'production',
    JWT_SECRET: randomBytes(48).toString('base64'),
    PAYMENT_GATEWAY: 'free',
  };

  it.each([
    ['WEBHOOK_ALLOW_PRIVATE', { WEBHOOK_ALLOW_PRIVATE: 'true' }],
    ['WEBHOOK_ALLOW_HTTP', { WEBHOOK_ALLOW_HTTP: 'true' }],
    ['both', { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE: 'true' }],
  ])(
    'refuses to start in production with %s=true unless acknowledged, naming the override',
    async (_label, env) => {
      const { code, output } = await runUntilExit({ ...production, ...env, WEB_CONCURRENCY: '2' });
      expect(code).toBe(78);
      for (const name of Object.keys(env)) expect(output).toContain(`${name}=true`);
      expect(output).toContain('refused when NODE_ENV=production');
      expect(output).toContain('WEBHOOK_UNSAFE_IN_PRODUCTION=true');
    },
  );
});

describe('payment gateway at start', () => {
  it('refuses to start in production without an explicit PAYMENT_GATEWAY, saying so in one line', async () => {
    const { code, output } = await runUntilExit({
      NODE_ENV: 'production',
      JWT_SECRET: randomBytes(32).toString('base64url'),
      // Empty counts as unset.
      PAYMENT_GATEWAY: '',
    });
    expect(code).toBe(78);
    expect(output.split('\n')).toContain(
      '  - PAYMENT_GATEWAY: required when NODE_ENV=production (free, operator or erc20; see docs/payments.md)',
    );
  });
});
