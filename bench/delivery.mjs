// The write path and webhook delivery under a sustained renew load, against the database's own limit (pgbench), for
// 1 and 2 delivery worker processes side by side (rounds alternate pgbench and the variants). Used by run.mjs.
import { spawn, fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import pg from 'pg';
import { freePort } from '../dist/src/common/net/free-port.js';
import { runMigrations } from '../dist/src/database/migrate.js';
import { cpuMs } from './service.mjs';

const RENEW_SECONDS = Number(process.env.BENCH_RENEW_DURATION ?? 30);
const ROUNDS = Number(process.env.BENCH_DELIVERY_ROUNDS ?? 2);
const PGBENCH_SECONDS = Number(process.env.BENCH_PGBENCH_DURATION ?? 10);
const ADDRESSES = Number(process.env.BENCH_WEBHOOK_ADDRESSES ?? 5000);
const WORKER_VARIANTS = (process.env.BENCH_WORKER_PROCESSES ?? '1,2').split(',').map(Number);
const DRAIN_TIMEOUT_MS = 180_000;
/** A ratio whose baseline moved more than this between rounds is flagged as unreliable. */
export const NOISE_LIMIT = 0.15;
const PGBENCH = process.env.BENCH_PGBENCH ?? '/usr/bin/pgbench';

export function spread(values) {
  const min = Math.min(...values);
  const max = Math.max(...values);
  return { min, max, spread: min > 0 ? +((max - min) / min).toFixed(3) : null };
}

function percentile(sorted, q) {
  if (sorted.length === 0) return null;
  return +sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))].toFixed(1);
}

const address = (n) => `0x${(0xde1000000 + n).toString(16).padStart(40, '0')}`;

/** Every address gets an active subscription and one enabled webhook (subscription.renewed) to the receiver. */
async function seed(client, receiverUrl) {
  await client.query(
    `INSERT INTO subscriptions (address, current_period_start, current_period_end, cancel_at_period_end, created_at, updated_at)
     SELECT '0x' || lpad(to_hex(x'de1000000'::bigint + g), 40, '0'), now(), now() + interval '30 days', false, now(), now()
     FROM generate_series(0, $1 - 1) AS g`,
    [ADDRESSES],
  );
  const secrets = Array.from({ length: ADDRESSES }, () => `whsec_${randomBytes(32).toString('base64')}`);
  await client.query(
    `INSERT INTO webhook_endpoints (owner_address, url, events, secret)
     SELECT '0x' || lpad(to_hex(x'de1000000'::bigint + n - 1), 40, '0'), $1, ARRAY['subscription.renewed'], s
     FROM unnest($2::text[]) WITH ORDINALITY AS u(s, n)`,
    [receiverUrl, secrets],
  );
  // The limit's tables: the same shape as a renewal (one row locked and updated, three small rows inserted).
  await client.query(`
    CREATE TABLE bench_limit_subscriptions (id int PRIMARY KEY, period_end timestamptz NOT NULL, updated_at timestamptz);
    CREATE TABLE bench_limit_history (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), subscription_id int, period_end timestamptz, created_at timestamptz DEFAULT now());
    CREATE TABLE bench_limit_payments (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), subscription_id int, amount int, created_at timestamptz DEFAULT now());
    CREATE TABLE bench_limit_events (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), subscription_id int, data jsonb, created_at timestamptz DEFAULT now());`);
  await client.query(
    `INSERT INTO bench_limit_subscriptions SELECT g, now(), now() FROM generate_series(1, $1) AS g`,
    [ADDRESSES],
  );
  await client.query('VACUUM ANALYZE');
  await client.query('CHECKPOINT');
}

const PGBENCH_SCRIPT = `\\set id random(1, ${ADDRESSES})
BEGIN;
SELECT period_end FROM bench_limit_subscriptions WHERE id = :id FOR UPDATE;
UPDATE bench_limit_subscriptions SET period_end = period_end + interval '30 days', updated_at = now() WHERE id = :id;
INSERT INTO bench_limit_history (subscription_id, period_end) VALUES (:id, now());
INSERT INTO bench_limit_payments (subscription_id, amount) VALUES (:id, 100);
INSERT INTO bench_limit_events (subscription_id, data) VALUES (:id, '{"type":"subscription.renewed","data":{"status":"active"}}');
END;
`;

function runPgbench(databaseUrl, scriptFile, clients) {
  return new Promise((resolve, reject) => {
    const child = spawn(
      PGBENCH,
      [
        '-n',
        '-M',
        'prepared',
        '-c',
        String(clients),
        '-j',
        '2',
        '-T',
        String(PGBENCH_SECONDS),
        '-f',
        scriptFile,
        databaseUrl,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.stderr.on('data', (chunk) => (out += chunk));
    child.once('exit', (code) => {
      const tps = /tps = ([\d.]+) \(without initial connection time\)/.exec(out);
      if (code !== 0 || !tps) reject(new Error(`pgbench failed (${code}):\n${out}`));
      else resolve(Number(tps[1]));
    });
  });
}

/** bench/receiver.mjs in its own process: `{ url, collect(), stop() }`. */
export async function startReceiver(root) {
  const port = await freePort();
  const child = fork(join(root, 'bench/receiver.mjs'), { env: { PORT: String(port) } });
  await new Promise((resolve) => child.once('message', resolve));
  return {
    url: `http://127.0.0.1:${port}/hook`,
    collect: () =>
      new Promise((resolve) => {
        child.once('message', (message) => resolve(message.arrivals));
        child.send('collect');
      }),
    stop: () => child.kill(),
  };
}

async function startWorker(root, nodeFlags, env) {
  const child = spawn(process.execPath, [...nodeFlags, join(root, 'dist/src/worker.js')], {
    env: { ...process.env, NODE_ENV: 'production', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('delivery worker did not start within 60 s')), 60_000);
    let seen = '';
    child.stdout.on('data', (chunk) => {
      seen += chunk;
      if (/worker is running/.test(seen)) {
        clearTimeout(timer);
        resolve();
      }
      if (seen.length > 100_000) seen = seen.slice(-1000);
    });
    child.once('exit', (code) => reject(new Error(`delivery worker exited with ${code}`)));
  });
  child.stdout.resume();
  return {
    cpuMs: () => cpuMs(child.pid),
    stop: () => new Promise((resolve) => (child.once('exit', resolve), child.kill('SIGTERM'))),
  };
}

async function pendingDeliveries(client) {
  const { rows } = await client.query(
    `SELECT count(*)::int AS n FROM webhook_deliveries WHERE status = 'pending'`,
  );
  return rows[0].n;
}

/** One round of one variant: the renew load with `workers` delivery processes, then the drain. */
async function deliveryRound(
  { root, nodeFlags, env, writer, manageKey, receiver, client },
  workers,
  seconds,
) {
  const processes = [];
  for (let i = 0; i < workers; i++) processes.push(await startWorker(root, nodeFlags, env));
  const workerCpu = () => processes.reduce((sum, worker) => sum + worker.cpuMs(), 0);
  const writerCpu = () => cpuMs(writer.child.pid);
  try {
    const cpuBefore = { workers: workerCpu(), writer: writerCpu() };
    const committed = new Set();
    let next = Math.floor(Math.random() * ADDRESSES);
    const started = performance.timeOrigin + performance.now();
    const result = await autocannon({
      url: `${writer.url}/subscriptions/renew`,
      method: 'POST',
      connections: 32,
      duration: seconds,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${manageKey}` },
      requests: [
        {
          setupRequest: (request) => ({
            ...request,
            body: JSON.stringify({ address: address(next++ % ADDRESSES) }),
          }),
          onResponse: (status, body) => {
            if (status !== 200) return;
            const renewed = JSON.parse(body);
            committed.add(`${renewed.address.toLowerCase()}|${renewed.currentPeriodEnd}`);
          },
        },
      ],
    });
    const loadEnded = performance.timeOrigin + performance.now();
    const depthAtEnd = await pendingDeliveries(client);
    let depth = depthAtEnd;
    while (depth > 0 && performance.timeOrigin + performance.now() - loadEnded < DRAIN_TIMEOUT_MS) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      depth = await pendingDeliveries(client);
    }
    const workersCpuMs = workerCpu() - cpuBefore.workers;
    const writerCpuMs = writerCpu() - cpuBefore.writer;
    const emptyAfter = depth === 0 ? (performance.timeOrigin + performance.now() - loadEnded) / 1000 : null;
    // The last answers may still be on their way to the receiver when the queue row says succeeded.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const arrivals = await receiver.collect();
    const firstArrival = new Map();
    let duplicates = 0;
    for (const [key, at, recordedAt] of arrivals) {
      if (firstArrival.has(key)) duplicates++;
      else firstArrival.set(key, { at, recordedAt });
    }
    // From the event's recording inside the renewal's transaction to its arrival: an upper bound of commit →
    // receiver (it includes the rest of the transaction). The renew's answer is no later bound: the delivery often
    // reaches the receiver before the answer reaches the load generator.
    const latencies = [];
    let delivered = 0;
    let deliveredDuringLoad = 0;
    for (const key of committed.keys()) {
      const arrival = firstArrival.get(key);
      if (arrival === undefined) continue;
      delivered++;
      if (arrival.at <= loadEnded) deliveredDuringLoad++;
      latencies.push(arrival.at - arrival.recordedAt);
    }
    latencies.sort((a, b) => a - b);
    const loadSeconds = (loadEnded - started) / 1000;
    return {
      workers,
      renewalsPerSecond: Math.round(committed.size / loadSeconds),
      renewErrors: result.errors + result.timeouts + (result.non2xx ?? 0),
      deliveriesPerSecond: Math.round(deliveredDuringLoad / loadSeconds),
      queueDepthAtEnd: depthAtEnd,
      secondsUntilEmpty: emptyAfter === null ? null : +emptyAfter.toFixed(2),
      latencyP50Ms: percentile(latencies, 0.5),
      latencyP99Ms: percentile(latencies, 0.99),
      undelivered: committed.size - delivered,
      duplicates,
      // CPU per unit of work is what a loaded, shared machine still measures fairly (the rates drift with it).
      writerCpuMsPerRenewal: +(writerCpuMs / Math.max(1, committed.size)).toFixed(3),
      workerCpuMsPerDelivery: +(workersCpuMs / Math.max(1, delivered)).toFixed(3),
    };
  } finally {
    for (const { stop } of processes) await stop();
  }
}

/**
 * Runs the case on its own database (created here): the writer instance runs no delivery workers, so the worker
 * processes of each variant are the only ones delivering. Returns the rows for the results table.
 */
export async function benchDelivery({
  root,
  nodeFlags,
  adminUrl,
  startService,
  login,
  createKey,
  operator,
  jwtSecret,
}) {
  const databaseUrl = new URL(adminUrl);
  databaseUrl.pathname = '/tollgate_delivery';
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query('CREATE DATABASE tollgate_delivery');
  await admin.end();
  await runMigrations(databaseUrl.href);
  const receiver = await startReceiver(root);
  const client = new pg.Client({ connectionString: databaseUrl.href });
  await client.connect();
  const scriptDir = mkdtempSync(join(tmpdir(), 'tollgate-pgbench-'));
  const scriptFile = join(scriptDir, 'renew-shape.sql');
  writeFileSync(scriptFile, PGBENCH_SCRIPT);
  const env = {
    DATABASE_URL: databaseUrl.href,
    JWT_SECRET: jwtSecret,
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_ALLOW_PRIVATE: 'true',
    // The receiver is on loopback, which production refuses unless acknowledged.
    WEBHOOK_UNSAFE_IN_PRODUCTION: 'true',
    OPERATOR_ADDRESSES: operator.address,
    DATABASE_POOL_SIZE: '20',
    // The worker processes start with this environment too, and production requires a gateway.
    PAYMENT_GATEWAY: 'free',
  };
  const writer = await startService(databaseUrl.href, { ...env, WEBHOOK_WORKERS: 'false' });
  try {
    await seed(client, receiver.url);
    const session = await login(writer.url, operator);
    const manageKey = await createKey(writer.url, session.token, ['SUBSCRIPTIONS_MANAGE']);
    const havePgbench = existsSync(PGBENCH);
    if (!havePgbench) console.log(`pgbench not found at ${PGBENCH}: the write path's limit is skipped`);
    const context = { root, nodeFlags, env, writer, manageKey, receiver, client };
    // Warm-up, not recorded: the writer's JIT and pools, and one worker's.
    await deliveryRound(context, 1, 3);
    const limits = [];
    const rounds = WORKER_VARIANTS.map(() => []);
    for (let round = 0; round < ROUNDS; round++) {
      if (havePgbench) limits.push(await runPgbench(databaseUrl.href, scriptFile, 20));
      for (const [index, workers] of WORKER_VARIANTS.entries()) {
        const run = await deliveryRound(context, workers, RENEW_SECONDS);
        console.log(JSON.stringify({ round, ...run }));
        rounds[index].push(run);
      }
    }
    const limit = limits.length ? limits.reduce((a, b) => a + b, 0) / limits.length : null;
    const noise = limits.length ? spread(limits) : null;
    const unreliable = noise !== null && noise.spread > NOISE_LIMIT;
    return WORKER_VARIANTS.map((workers, index) => {
      const runs = rounds[index];
      const mean = (key) => Math.round(runs.reduce((sum, run) => sum + run[key], 0) / runs.length);
      const worst = (key) =>
        runs.some((run) => run[key] === null) ? null : Math.max(...runs.map((run) => run[key]));
      const renewals = mean('renewalsPerSecond');
      return {
        name: `renew load ${RENEW_SECONDS} s + webhook delivery, ${workers} worker process${workers > 1 ? 'es' : ''}`,
        rps: renewals,
        p50: worst('latencyP50Ms'),
        p99: worst('latencyP99Ms'),
        errors: runs.reduce((sum, run) => sum + run.renewErrors + run.undelivered, 0),
        rawRps: limit === null ? null : Math.round(limit),
        ratio: limit === null ? null : +(renewals / limit).toFixed(3),
        baseline: limit === null ? 'pgbench skipped' : 'pgbench, same-shape transaction, 20 clients',
        baselineRounds: limits.map(Math.round),
        baselineSpread: noise?.spread ?? null,
        unreliable,
        deliveriesPerSecond: mean('deliveriesPerSecond'),
        queueDepthAtEnd: worst('queueDepthAtEnd'),
        secondsUntilEmpty: worst('secondsUntilEmpty'),
        duplicates: runs.reduce((sum, run) => sum + run.duplicates, 0),
        writerCpuMsPerRenewal: Math.max(...runs.map((run) => run.writerCpuMsPerRenewal)),
        workerCpuMsPerDelivery: Math.max(...runs.map((run) => run.workerCpuMsPerDelivery)),
        rounds: runs,
        note: 'req/s = renewals/s; p50/p99 = event recorded (in the renewal transaction) → receiver, ms (worst round)',
      };
    });
  } finally {
    await writer.stop();
    await client.end();
    receiver.stop();
    rmSync(scriptDir, { recursive: true, force: true });
  }
}
