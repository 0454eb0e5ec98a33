// What delivery costs an idle instance and how long an event waits for its delivery when the queue is idle:
// `npm run build && node bench/delivery-idle.mjs` (PostgreSQL at BENCH_ADMIN_URL, default the local one on 5432).
// Two instances of the built service on one fresh database, as `npm start` runs them: A with the default settings
// (delivery workers on), B with WEBHOOK_WORKERS=false. Statements per second are the database's committed
// transactions (`pg_stat_database.xact_commit`, every statement outside a transaction is one) over windows of
// BENCH_IDLE_WINDOW seconds, with A alone and then with A and B, nothing else using that database. Latency is from
// sending a renewal to its `subscription.renewed` delivery reaching a receiver in this process, renewals spaced
// BENCH_IDLE_SPACING_MS apart so the queue is idle before each: renewed on A (A enqueues and delivers) and on B
// (B enqueues, A delivers). BENCH_CHECKOUT runs another checkout's build (its dist/ and package.json) for a before /
// after comparison.
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import pg from 'pg';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { runMigrations } from '../dist/src/database/migrate.js';
import { createKey, signIn } from './api.mjs';
import { startService } from './service.mjs';

const ADMIN_URL = process.env.BENCH_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const WINDOW_SECONDS = Number(process.env.BENCH_IDLE_WINDOW ?? 10);
const WINDOWS = Number(process.env.BENCH_IDLE_WINDOWS ?? 3);
const RENEWALS = Number(process.env.BENCH_IDLE_RENEWALS ?? 15);
const SPACING_MS = Number(process.env.BENCH_IDLE_SPACING_MS ?? 3000);
const CHECKOUT = process.env.BENCH_CHECKOUT;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const now = () => performance.timeOrigin + performance.now();

/** Committed transactions per second in the bench's database over `seconds`, less the two reads of the counter. */
async function statementsPerSecond(client, database, seconds) {
  const read = async () =>
    Number(
      (await client.query('SELECT xact_commit FROM pg_stat_database WHERE datname = $1', [database])).rows[0]
        .xact_commit,
    );
  // The statistics are flushed at most once a second per backend: a pause before each read lets them settle.
  await sleep(1500);
  const before = await read();
  await sleep(seconds * 1000);
  await sleep(1500);
  const after = await read();
  return +((after - before - 2) / (seconds + 1.5)).toFixed(1);
}

function percentile(sorted, q) {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

async function main() {
  const database = `tollgate_idle_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${database}`);
  const databaseUrl = new URL(ADMIN_URL);
  databaseUrl.pathname = `/${database}`;
  await runMigrations(databaseUrl.href);

  const arrivals = new Map();
  const receiver = createServer((request, response) => {
    const chunks = [];
    request.on('data', (chunk) => chunks.push(chunk));
    request.on('end', () => {
      const event = JSON.parse(Buffer.concat(chunks).toString());
      if (!arrivals.has(event.data.address)) arrivals.set(event.data.address.toLowerCase(), now());
      response.statusCode = 204;
      response.end();
    });
  });
  await new Promise((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const receiverUrl = `http://127.0.0.1:${receiver.address().port}/hook`;

  const client = new pg.Client({ connectionString: databaseUrl.href });
  await client.connect();
  const addresses = Array.from(
    { length: 2 * RENEWALS },
    (_, n) => `0x${(0xbe0000 + n).toString(16).padStart(40, '0')}`,
  );
  await client.query(
    `INSERT INTO subscriptions (address, current_period_start, current_period_end, cancel_at_period_end, created_at, updated_at)
     SELECT a, now(), now() + interval '30 days', false, now(), now() FROM unnest($1::text[]) AS a`,
    [addresses],
  );
  await client.query(
    `INSERT INTO webhook_endpoints (owner_address, url, events, secret)
     SELECT a, $2, ARRAY['subscription.renewed'], 'whsec_' || encode(decode(md5(random()::text) || md5(random()::text), 'hex'), 'base64')
     FROM unnest($1::text[]) AS a`,
    [addresses, receiverUrl],
  );

  const operator = privateKeyToAccount(generatePrivateKey());
  const jwtSecret = randomBytes(48).toString('base64url');
  const env = {
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_ALLOW_PRIVATE: 'true',
    WEBHOOK_UNSAFE_IN_PRODUCTION: 'true',
    OPERATOR_ADDRESSES: operator.address,
    PAYMENT_GATEWAY: 'free',
  };
  const a = await startService({ databaseUrl: databaseUrl.href, env, jwtSecret, checkout: CHECKOUT });
  const results = {};
  let b;
  try {
    const key = await createKey(a.url, (await signIn(a.url, operator)).token, ['SUBSCRIPTIONS_MANAGE']);
    // The instance in its running state: a few deliveries through it before measuring.
    const renewAndWait = async (url, address) => {
      const sent = now();
      const response = await fetch(`${url}/subscriptions/renew`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        body: JSON.stringify({ address }),
      });
      const answered = now();
      if (response.status !== 200)
        throw new Error(`renew answered ${response.status}: ${await response.text()}`);
      while (!arrivals.has(address)) await sleep(1);
      return { total: arrivals.get(address) - sent, afterAnswer: arrivals.get(address) - answered };
    };
    const summary = (values) => {
      const sorted = [...values].sort((x, y) => x - y);
      return {
        median: +percentile(sorted, 0.5).toFixed(1),
        p90: +percentile(sorted, 0.9).toFixed(1),
        max: +sorted.at(-1).toFixed(1),
      };
    };
    const latencies = async (url, from) => {
      const measured = [];
      for (let i = 0; i < RENEWALS; i++) {
        await sleep(SPACING_MS);
        measured.push(await renewAndWait(url, addresses[from + i]));
      }
      return {
        'sent → delivered': summary(measured.map((m) => m.total)),
        'answered → delivered': summary(measured.map((m) => m.afterAnswer)),
      };
    };
    await sleep(3000);
    results.idleA = [];
    for (let w = 0; w < WINDOWS; w++)
      results.idleA.push(await statementsPerSecond(client, database, WINDOW_SECONDS));
    results.latencyOnA = await latencies(a.url, 0);
    b = await startService({
      databaseUrl: databaseUrl.href,
      env: { ...env, WEBHOOK_WORKERS: 'false' },
      jwtSecret,
      checkout: CHECKOUT,
    });
    await sleep(3000);
    results.idleAB = [];
    for (let w = 0; w < WINDOWS; w++)
      results.idleAB.push(await statementsPerSecond(client, database, WINDOW_SECONDS));
    results.latencyOnB = await latencies(b.url, RENEWALS);
  } finally {
    await b?.stop();
    await a.stop();
    await client.end();
    receiver.close();
    await admin.query(`DROP DATABASE ${database}`);
    await admin.end();
  }
  console.log(
    JSON.stringify(
      {
        windowSeconds: WINDOW_SECONDS,
        renewals: RENEWALS,
        spacingMs: SPACING_MS,
        'idle statements/s, A alone (per window)': results.idleA,
        'idle statements/s, A and B (per window)': results.idleAB,
        'latency ms, renewed on A': results.latencyOnA,
        'latency ms, renewed on B, delivered by A': results.latencyOnB,
      },
      null,
      2,
    ),
  );
}

await main();
