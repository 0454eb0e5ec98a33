import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import * as yaml from 'js-yaml';
import { until } from './utils/receiver.js';
import { startServiceProcess } from './utils/service-process.js';
import { workerDatabaseUrl } from './utils/test-database.js';

const PRODUCTION = {
  NODE_ENV: 'production',
  JWT_SECRET: randomBytes(48).toString('base64'),
  PAYMENT_GATEWAY: 'operator',
  COOKIE_SECURE: 'false',
};

/** The warnings the built service logged while it started as a cluster of two workers, all of them listening. */
async function startWarnings(env: Record<string, string>): Promise<string[]> {
  const service = await startServiceProcess(await workerDatabaseUrl(), {
    ...env,
    WEB_CONCURRENCY: '2',
    // For the workers' "listening" lines.
    LOG_LEVEL: 'info',
  });
  try {
    const lines = () =>
      service.output
        .join('')
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as { level: number; msg: string });
    await until(
      () => lines().filter((line) => line.msg === 'Tollgate is listening').length >= 2,
      60_000,
      'both cluster workers to listen',
    );
    return lines()
      .filter((line) => line.level === 40)
      .map((line) => line.msg);
  } finally {
    await service.kill();
  }
}

describe('production defaults', () => {
  it('warns once at start in production while AUTH_REQUIRE_SIWE is false (and on Node.js 20), not once it is true', async () => {
    const warnings = await startWarnings(PRODUCTION);
    // Once for the start, not once per cluster worker.
    expect(warnings.filter((warning) => warning.startsWith('AUTH_REQUIRE_SIWE=false'))).toEqual([
      expect.stringMatching(/^AUTH_REQUIRE_SIWE=false: a signature over the bare nonce is accepted/),
    ]);
    // Node.js 20 runs, past its end of life, with one warning for the start; the supported lines with none.
    expect(warnings.filter((warning) => warning.includes('end of life'))).toEqual(
      process.versions.node.startsWith('20.')
        ? [expect.stringMatching(/^Node\.js 20 reached its end of life on 2026-04-30/)]
        : [],
    );
    expect(await startWarnings({ ...PRODUCTION, AUTH_REQUIRE_SIWE: 'true' })).not.toContainEqual(
      expect.stringMatching(/AUTH_REQUIRE_SIWE/),
    );
  });

  it('warns once at start while acknowledged development-only webhook settings are on in production', async () => {
    expect(await startWarnings(PRODUCTION)).not.toContainEqual(expect.stringMatching(/WEBHOOK_/));
    const warnings = await startWarnings({
      ...PRODUCTION,
      WEBHOOK_ALLOW_PRIVATE: 'true',
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_UNSAFE_IN_PRODUCTION: 'true',
    });
    expect(warnings.filter((warning) => warning.includes('WEBHOOK_'))).toEqual([
      expect.stringMatching(
        /^WEBHOOK_ALLOW_HTTP=true, WEBHOOK_ALLOW_PRIVATE=true in production \(acknowledged by WEBHOOK_UNSAFE_IN_PRODUCTION=true\): .*own network$/,
      ),
    ]);
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
