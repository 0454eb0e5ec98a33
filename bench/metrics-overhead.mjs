// node bench/metrics-overhead.mjs (after npm run build): what the metrics cost on the hot read path. Two instances
// of the service on one embedded PostgreSQL, one with METRICS_PORT (its /metrics scraped every second, far more
// often than Prometheus would) and one without, driven alternately by autocannon in rounds so that the shared
// machine's drift hits both alike. Reports requests/s and CPU time per request read from /proc for each.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { pino } from 'pino';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { startEmbeddedPostgres } from '../dist/src/database/embedded-postgres.js';
import { runMigrations } from '../dist/src/database/migrate.js';
import { freePort } from '../dist/src/common/net/free-port.js';
import { cpuSeconds, createKey, postJson, signIn } from './api.mjs';
import { startService as startBenchService } from './service.mjs';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
/** The service as `npm start` runs it, default settings; reads only, so without background workers. */
const startService = (databaseUrl, env) =>
  startBenchService({ databaseUrl, env: { WEBHOOK_WORKERS: 'false', ...env } });

/** A new wallet, signed in, with a read-only key and a subscription. */
async function login(url) {
  const account = privateKeyToAccount(generatePrivateKey());
  const { token } = await signIn(url, account);
  const key = await createKey(url, token, ['READ_ONLY']);
  await postJson(url, '/subscriptions/renew', {}, token);
  return { address: account.address, key };
}

async function main() {
  const logger = pino({ level: 'warn' });
  const database = await startEmbeddedPostgres(
    mkdtempSync(join(tmpdir(), 'tollgate-metrics-bench-')),
    logger,
  );
  await runMigrations(database.url);
  const metricsPort = await freePort();
  const off = await startService(database.url, {});
  const on = await startService(database.url, { METRICS_PORT: String(metricsPort) });
  const scraper = setInterval(() => {
    fetch(`http://127.0.0.1:${metricsPort}/metrics`).then(
      (response) => response.text(),
      () => undefined,
    );
  }, 1000);
  try {
    const { address, key } = await login(off.url);
    const cases = [
      ['GET /health', '/health', {}],
      [
        'GET /subscriptions/status (API key)',
        `/subscriptions/status?address=${address}`,
        { authorization: `Bearer ${key}` },
      ],
    ];
    const variants = [
      ['metrics off', off],
      ['metrics on, scraped every second', on],
    ];
    for (const [name, path, headers] of cases) {
      // Warm-up, unrecorded: compiled code and caches on both.
      for (const [, service] of variants)
        await autocannon({ url: `${service.url}${path}`, headers, connections: CONNECTIONS, duration: 2 });
      const totals = variants.map(() => ({ requests: 0, seconds: 0, cpu: 0, errors: 0 }));
      for (let round = 0; round < ROUNDS; round++) {
        for (const [index, [, service]] of variants.entries()) {
          const cpuBefore = cpuSeconds(service.child.pid);
          const result = await autocannon({
            url: `${service.url}${path}`,
            headers,
            connections: CONNECTIONS,
            duration: SECONDS,
          });
          totals[index].cpu += cpuSeconds(service.child.pid) - cpuBefore;
          totals[index].requests += result.requests.total;
          totals[index].seconds += result.duration;
          totals[index].errors += result.errors + result.timeouts + (result.non2xx ?? 0);
        }
      }
      const rows = totals.map((total, index) => ({
        case: name,
        variant: variants[index][0],
        rps: Math.round(total.requests / total.seconds),
        cpuPerRequestUs: +((total.cpu / total.requests) * 1e6).toFixed(1),
        errors: total.errors,
      }));
      for (const row of rows) console.log(JSON.stringify(row));
      console.log(
        JSON.stringify({
          case: name,
          onOverOffRps: +(rows[1].rps / rows[0].rps).toFixed(3),
          onOverOffCpu: +(rows[1].cpuPerRequestUs / rows[0].cpuPerRequestUs).toFixed(3),
        }),
      );
    }
  } finally {
    clearInterval(scraper);
    await on.stop();
    await off.stop();
    await database.stop();
  }
}

await main();
