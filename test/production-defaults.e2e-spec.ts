import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import * as yaml from 'js-yaml';
import { startTestApp } from './utils/test-app.js';

const PRODUCTION = {
  NODE_ENV: 'production',
  JWT_SECRET: randomBytes(48).toString('base64'),
  PAYMENT_GATEWAY: 'operator',
  COOKIE_SECURE: 'false',
};

/** The warnings an instance logged while it started. */
async function startWarnings(env: Record<string, string>): Promise<string[]> {
  const t = await startTestApp({ env });
  try {
    return t.logs.filter((line) => line.level === 40).map((line) => String(line.msg));
  } finally {
    await t.close();
  }
}

describe('production defaults', () => {
  it('warns at start in production while AUTH_REQUIRE_SIWE is false, and not once it is true', async () => {
    expect(await startWarnings(PRODUCTION)).toContainEqual(
      expect.stringMatching(/^AUTH_REQUIRE_SIWE=false: a signature over the bare nonce is accepted/),
    );
    expect(await startWarnings({ ...PRODUCTION, AUTH_REQUIRE_SIWE: 'true' })).not.toContainEqual(
      expect.stringMatching(/AUTH_REQUIRE_SIWE/),
    );
  });

  it('leaves the payment gateway of the production compose stack to the operator', () => {
    const compose = yaml.load(readFileSync('docker-compose.yml', 'utf8')) as {
      services: { tollgate: { environment: Record<string, string> } };
    };
    const gateway = compose.services.tollgate.environment.PAYMENT_GATEWAY;
    // `${NAME:?message}`: compose refuses to start while the variable is unset or empty, and has no default.
    expect(gateway).toMatch(/^\$\{PAYMENT_GATEWAY:\?[^}]+\}$/);
  });
});
