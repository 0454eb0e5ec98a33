// npm run bench: the service and a raw node:http server side by side on loopback, driven alternately by a load
// generator. Prints each phase with the time since the start and what comes next, and writes
// (bench/results/latest.{json,md,svg}) requests/s, p50/p99 latency and the ratio to raw for each case, the ratios
// also as a chart.
//
// The load generator (BENCH_GENERATOR): `wrk` (Debian's package: apt-get install wrk), a separate process in C, or
// `autocannon`, in this process. With wrk on a machine of two cores or more, the servers (this process and its
// children: PostgreSQL, the service, the references) run on core 0 and wrk on core 1 (taskset, BENCH_PIN=0 to turn
// it off), so the generator does not take the servers' core. Without wrk installed the bench says so and uses
// autocannon, unpinned. Loads with a body, a method other than GET or a fixed number of requests (renewals, logins)
// always use autocannon, in this process (so on the servers' core when pinned).
import { execFileSync, fork, spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import pg from 'pg';
import { pino } from 'pino';
import prettier from 'prettier';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { verifyMessage } from 'viem';
import { startEmbeddedPostgres } from '../dist/src/database/embedded-postgres.js';
import { runMigrations } from '../dist/src/database/migrate.js';
import { generateApiKey } from '../dist/src/api-keys/api-key-format.js';
import { freePort } from '../dist/src/common/net/free-port.js';
import { ratioChart } from './chart.mjs';
import { benchAutoRenew } from './auto-renew.mjs';
import { benchDelivery, NOISE_LIMIT, spread, startReceiver } from './delivery.mjs';
import { createKey, signIn as login } from './api.mjs';
import { nodeFlags, startService as startBenchService } from './service.mjs';

const DURATION = Number(process.env.BENCH_DURATION ?? 8);
/** Rounds of the read rows: raw, the bare NestJS route and the service take turns this many times. */
const READ_ROUNDS = Number(process.env.BENCH_READ_ROUNDS ?? 3);
/** How long the instance works in the background before the read rows (after its wallets, keys and renewals). */
const SETTLE_SECONDS = Number(process.env.BENCH_SETTLE_SECONDS ?? 120);
/** Wallets that sign in, make a key, renew with a webhook and read before the read rows. */
const RUNNING_WALLETS = Number(process.env.BENCH_RUNNING_WALLETS ?? 50);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const LARGE_SUBSCRIPTIONS = Number(process.env.BENCH_SUBSCRIPTIONS ?? 1_000_000);
const LARGE_KEYS = Number(process.env.BENCH_KEYS ?? 100_000);
const JWT_SECRET = randomBytes(48).toString('base64url');
/**
 * Which cases run (comma-separated), all by default: reads, renew, delivery, verify, scale, tracing. Also, not by
 * default (about 15 minutes on its own): autorenew (bench/auto-renew.mjs).
 */
const CASES = new Set((process.env.BENCH_CASES ?? 'reads,renew,delivery,verify,scale,tracing').split(','));
const root = new URL('..', import.meta.url).pathname;

const onPath = (command) => {
  try {
    execFileSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
};
const WANTED_GENERATOR = process.env.BENCH_GENERATOR ?? 'wrk';
const GENERATOR = WANTED_GENERATOR === 'wrk' && !onPath('wrk') ? 'autocannon' : WANTED_GENERATOR;
/** Servers on core 0, wrk on core 1: only with wrk, which runs outside this process. */
/** The autorenew case uses no load generator: run alone, its service and chain processes get every core. */
const PINNED =
  GENERATOR === 'wrk' &&
  cpus().length >= 2 &&
  process.env.BENCH_PIN !== '0' &&
  [...CASES].some((name) => name !== 'autorenew') &&
  onPath('taskset');
const SETUP = PINNED ? 'wrk on core 1, servers on core 0 (taskset)' : `${GENERATOR}, unpinned`;

const benchStarted = performance.now();
/** One line per phase on standard error, with the time since the start and what comes next: a run takes minutes. */
function phase(now, next) {
  const seconds = Math.round((performance.now() - benchStarted) / 1000);
  const clock = `${String(Math.floor(seconds / 60)).padStart(2, '0')}:${String(seconds % 60).padStart(2, '0')}`;
  console.error(`[${clock}] ${now}${next ? ` (next: ${next})` : ''}`);
}
/** The cases of this run in order, each naming the one after it. */
const PLAN = ['reads', 'renew', 'delivery', 'verify', 'scale', 'autorenew'].filter((name) => CASES.has(name));
const after = (name) => PLAN[PLAN.indexOf(name) + 1] ?? 'writing the results';
/** The node flags `npm start` runs the service with, for the reference servers too. */
const NODE_FLAGS = nodeFlags();

/**
 * The public origin of every instance of a run, as a deployment's instances share one: left to follow each
 * instance's port, a challenge issued by one would not verify on another.
 */
const ONE_ORIGIN = { AUTH_DOMAIN: 'localhost:3000', AUTH_URI: 'http://localhost:3000' };

/** The built checkout whose service is measured: this one, or another build for a before/after (BENCH_CHECKOUT). */
const CHECKOUT = process.env.BENCH_CHECKOUT || undefined;

/** The service as `npm start` runs it, with default settings and this run's secret (its instances share sessions). */
const startService = (databaseUrl, env = {}) =>
  startBenchService({
    databaseUrl,
    env: { ...ONE_ORIGIN, ...env },
    jwtSecret: JWT_SECRET,
    checkout: CHECKOUT,
  });

/**
 * A server of bench/ in its own process, with the service's node flags: raw node:http, or the bare Nest route. Its
 * standard output goes to a file, as the service's does.
 */
async function startReference(script, env = {}) {
  const port = await freePort();
  const log = openSync(join(mkdtempSync(join(tmpdir(), 'tollgate-bench-ref-')), 'out.log'), 'a');
  const child = fork(join(root, 'bench', script), {
    env: { PORT: String(port), ...env },
    execArgv: NODE_FLAGS,
    stdio: ['ignore', log, log, 'ipc'],
  });
  await new Promise((resolve) => child.once('message', resolve));
  return { url: `http://127.0.0.1:${port}`, child, stop: () => child.kill() };
}

function rssMb(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)[1]) / 1024);
}

/** A GET load for `duration` seconds by wrk, pinned to core 1 when PINNED; the same fields as autocannon's. */
async function wrkLoad({ url, headers = {}, duration, connections = CONNECTIONS }) {
  const args = ['-t1', `-c${connections}`, `-d${Math.max(1, Math.round(duration))}s`, '--latency'];
  for (const [name, value] of Object.entries(headers)) args.push('-H', `${name}: ${value}`);
  const command = PINNED ? ['taskset', ['-c', '1', 'wrk', ...args, url]] : ['wrk', [...args, url]];
  const output = await new Promise((resolve, reject) => {
    const child = spawn(command[0], command[1], { stdio: ['ignore', 'pipe', 'inherit'] });
    let text = '';
    child.stdout.on('data', (chunk) => (text += chunk));
    child.once('error', reject);
    child.once('close', (code) =>
      code === 0 ? resolve(text) : reject(new Error(`wrk exited ${code}: ${text}`)),
    );
  });
  const ms = (match) => {
    if (!match) return null;
    const factor = { us: 0.001, ms: 1, s: 1000, m: 60_000 }[match[2]];
    return +(Number(match[1]) * factor).toFixed(2);
  };
  const count = (pattern) => Number(pattern.exec(output)?.[1] ?? 0);
  const socketErrors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(output);
  return {
    rps: Math.round(Number(/Requests\/sec:\s+([\d.]+)/.exec(output)[1])),
    p50: ms(/50%\s+([\d.]+)(us|ms|s|m)/.exec(output)),
    p99: ms(/99%\s+([\d.]+)(us|ms|s|m)/.exec(output)),
    errors:
      count(/Non-2xx or 3xx responses: (\d+)/) +
      (socketErrors ? socketErrors.slice(1).reduce((sum, n) => sum + Number(n), 0) : 0),
  };
}

async function load(options) {
  const simple = !options.amount && !options.body && !options.requests && (options.method ?? 'GET') === 'GET';
  if (GENERATOR === 'wrk' && simple) return wrkLoad({ ...options, duration: options.duration ?? DURATION });
  const result = await autocannon({
    connections: CONNECTIONS,
    ...(options.amount ? {} : { duration: DURATION }),
    ...options,
  });
  const errors = result.errors + result.timeouts + (result.non2xx ?? 0);
  return {
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors,
  };
}

/** Runs of equal length combined: mean rate, worst percentiles, all errors, and how far the rate moved. */
function combine(runs) {
  return {
    rps: Math.round(runs.reduce((sum, run) => sum + run.rps, 0) / runs.length),
    p50: Math.max(...runs.map((run) => run.p50)),
    p99: Math.max(...runs.map((run) => run.p99)),
    errors: runs.reduce((sum, run) => sum + run.errors, 0),
    rounds: runs.map((run) => run.rps),
  };
}

/**
 * Fixed-duration loads of several targets taking turns in rounds, `DURATION` in all for each, so a drift in the
 * machine's speed hits every target alike. One combined result per target, in order.
 */
async function alternate(targets, rounds) {
  const duration = Math.max(1, DURATION / rounds);
  const runs = targets.map(() => []);
  for (let round = 0; round < rounds; round++) {
    // Each round starts one target later, so no target always runs right after the same one.
    for (let turn = 0; turn < targets.length; turn++) {
      const index = (round + turn) % targets.length;
      runs[index].push(await load({ ...targets[index], duration }));
    }
  }
  return runs.map(combine);
}

async function renew(url, token, address, plan) {
  await fetch(`${url}/subscriptions/renew`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ address, ...(plan === undefined ? {} : { plan }) }),
  });
}

/**
 * The plan the bench wallet reads on: a stored one (read through the plan cache, as an integrator's wallets are),
 * free, so renewing onto it needs no payment. The owner is an operator.
 */
const BENCH_PLAN = {
  id: 'bench',
  name: 'Bench',
  periodSeconds: 30 * 86_400,
  pricePerPeriod: '0',
  features: ['api.calls', 'export.csv'],
};

async function createPlan(url, token, plan) {
  const created = await fetch(`${url}/plans`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify(plan),
  });
  if (!created.ok) throw new Error(`creating the bench plan: ${created.status} ${await created.text()}`);
}

/** Bulk rows straight into PostgreSQL: the scale cases need a million subscriptions and 100 000 keys. */
async function seedBulk(databaseUrl, subscriptions, keys) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  await client.query(
    `INSERT INTO subscriptions (address, current_period_start, current_period_end, cancel_at_period_end, created_at, updated_at)
     SELECT '0x' || lpad(to_hex(g), 40, '0'), now(), now() + interval '30 days', false, now(), now()
     FROM generate_series(1, $1) AS g ON CONFLICT DO NOTHING`,
    [subscriptions],
  );
  const batch = 10_000;
  for (let done = 0; done < keys; done += batch) {
    const rows = Array.from({ length: Math.min(batch, keys - done) }, () => generateApiKey());
    await client.query(
      `INSERT INTO api_keys (owner_address, label, scopes, key_digest, prefix, last4)
       SELECT '0x' || lpad(to_hex(n), 40, '0'), 'bulk', ARRAY['READ_ONLY'], d, p, l
       FROM unnest($1::bytea[], $2::text[], $3::text[]) WITH ORDINALITY AS u(d, p, l, n)`,
      [rows.map((row) => row.digest), rows.map((row) => row.prefix), rows.map((row) => row.last4)],
    );
  }
  await client.query('VACUUM ANALYZE');
  // Write the new rows out now rather than in a checkpoint during the measurement.
  await client.query('CHECKPOINT');
  await client.end();
}

/** In-process viem verifyMessage over the same kind of signatures for `seconds`: the unavoidable ecrecover cost. */
async function verifyBaseline(samples, seconds) {
  const started = performance.now();
  let done = 0;
  while (performance.now() - started < seconds * 1000) {
    const sample = samples[done % samples.length];
    await verifyMessage({ address: sample.address, message: sample.message, signature: sample.signature });
    done++;
  }
  return { done, seconds: (performance.now() - started) / 1000 };
}

/**
 * Brings an instance into the state a running one is in: RUNNING_WALLETS wallets sign in, each makes a key, points a
 * webhook at a local receiver and renews (a delivery each); then `seconds` of light traffic (each key reads its
 * status once a second) while the background work runs.
 */
async function runningState(url, seconds) {
  const receiver = await startReceiver(root);
  const keys = [];
  for (let i = 0; i < RUNNING_WALLETS; i++) {
    const account = privateKeyToAccount(generatePrivateKey());
    const session = await login(url, account);
    keys.push([await createKey(url, session.token, ['READ_ONLY']), account.address]);
    await fetch(`${url}/webhooks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${session.token}` },
      body: JSON.stringify({ url: receiver.url }),
    });
    await renew(url, session.token, account.address);
  }
  const until = Date.now() + seconds * 1000;
  while (Date.now() < until) {
    await Promise.all(
      keys.map(([key, address]) =>
        fetch(`${url}/subscriptions/status?address=${address}`, {
          headers: { authorization: `Bearer ${key}` },
        }),
      ),
    );
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  receiver.stop();
}

async function main() {
  phase(
    `load generator: ${SETUP}${GENERATOR !== WANTED_GENERATOR ? ` (${WANTED_GENERATOR} is not installed: apt-get install wrk)` : ''}; cases: ${PLAN.join(', ')}`,
  );
  phase('starting the embedded PostgreSQL, raw node:http, the bare NestJS routes and the service', PLAN[0]);
  const dataDir = mkdtempSync(join(tmpdir(), 'tollgate-bench-'));
  const logger = pino({ level: 'warn' });
  const database = await startEmbeddedPostgres(dataDir, logger);
  await runMigrations(database.url);
  const raw = await startReference('raw-server.mjs');
  const bareNest = await startReference('bare-nest-server.mjs');
  // The same bare route writing the service's request log line: the ceiling of a service that logs every request,
  // as this one does by default.
  const bareLogged = await startReference('bare-nest-server.mjs', { REQUEST_LOG: '1' });
  const owner = privateKeyToAccount(generatePrivateKey());
  const service = await startService(database.url, {
    OPERATOR_ADDRESSES: owner.address,
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_ALLOW_PRIVATE: 'true',
    // The renew cases renew one address thousands of times within seconds: past the daily budget of events per
    // wallet, most answers would be 409 `event_limit_reached` rather than renewals.
    EVENTS_MAX_PER_WALLET_PER_DAY: '1000000',
  });
  const results = [];
  // The baseline's own noise: how far its rate moved between rounds; a ratio is unreliable past NOISE_LIMIT.
  const record = (
    name,
    { rounds, ...serviceRun },
    rawRun,
    extra = {},
    bareRun = null,
    loggedRun = null,
    guardedRun = null,
  ) => {
    const noise = rawRun?.rounds?.length > 1 ? spread(rawRun.rounds) : null;
    const guardedSpread = guardedRun?.rounds?.length > 1 ? spread(guardedRun.rounds).spread : null;
    const ratioTo = (run) => (run ? +(serviceRun.rps / run.rps).toFixed(3) : null);
    const row = {
      name,
      ...serviceRun,
      rawRps: rawRun?.rps ?? null,
      ratio: ratioTo(rawRun),
      bareRps: bareRun?.rps ?? null,
      ratioToBare: ratioTo(bareRun),
      bareLoggedRps: loggedRun?.rps ?? null,
      ratioToBareLogged: ratioTo(loggedRun),
      guardedRps: guardedRun?.rps ?? null,
      ratioToGuarded: ratioTo(guardedRun),
      guardedSpread,
      guardedErrors: guardedRun?.errors ?? null,
      // A reference that refused requests or moved too much between rounds says nothing about the service.
      guardedUnreliable: guardedRun ? guardedRun.errors > 0 || guardedSpread > NOISE_LIMIT : null,
      serviceSpread: rounds?.length > 1 ? spread(rounds).spread : null,
      bareSpread: bareRun?.rounds?.length > 1 ? spread(bareRun.rounds).spread : null,
      rounds: rounds ?? null,
      baselineRounds: rawRun?.rounds ?? null,
      baselineSpread: noise?.spread ?? null,
      unreliable: noise ? noise.spread > NOISE_LIMIT : null,
      serviceRssMb: rssMb(service.child.pid),
      ...extra,
    };
    results.push(row);
    console.log(JSON.stringify(row));
  };
  /**
   * Raw node:http, the bare NestJS route (without and with the request log line) and the service take turns in
   * rounds, so a drift in the machine's speed hits all alike: each row is a ratio to raw and to the framework's own
   * ceiling, measured beside it. An authenticated read also takes turns with the bare route behind the ordinary
   * passport guard for its credential (`guarded`: that reference's request).
   */
  const sideBySide = async (name, request, guarded) => {
    const [rawRun, bareRun, loggedRun, serviceRun, guardedRun] = await alternate(
      [
        { url: raw.url },
        { url: `${bareNest.url}/health` },
        { url: `${bareLogged.url}/health` },
        serviceRequest(request),
        ...(guarded ? [guarded] : []),
      ],
      READ_ROUNDS,
    );
    record(name, serviceRun, rawRun, {}, bareRun, loggedRun, guardedRun);
  };
  const serviceRequest = (request) => ({
    url: `${service.url}${request.path}`,
    headers: request.headers,
    method: request.method ?? 'GET',
    body: request.body,
  });

  let inLoop;
  let largeInstance;
  let bareGuarded;
  let tracingInstances = [];
  try {
    const session = await login(service.url, owner);
    const key = await createKey(service.url, session.token, ['READ_ONLY']);
    const manageKey = await createKey(service.url, session.token, ['SUBSCRIPTIONS_MANAGE']);
    await createPlan(service.url, session.token, BENCH_PLAN);
    await renew(service.url, session.token, owner.address, BENCH_PLAN.id);
    const statusPath = `/subscriptions/status?address=${owner.address}`;
    const entitlementPath = `/entitlements?address=${owner.address}&feature=export.csv`;
    const credentials = {
      key: { authorization: `Bearer ${key}` },
      jwt: { authorization: `Bearer ${session.token}` },
      cookie: { cookie: session.cookie },
    };
    if (CASES.has('reads')) {
      // The bare route with the log line behind passport, for this run's key and tokens: the floor of an
      // authenticated route in this stack before it does anything of its own, with @nestjs/passport's ordinary
      // AuthGuard and in the service's own form (the one strategy run once by passport's protocol).
      bareGuarded = await startReference('bare-nest-server.mjs', {
        REQUEST_LOG: '1',
        GUARD_KEY: key,
        GUARD_JWT_SECRET: JWT_SECRET,
      });
      const guarded = (path, headers) => ({
        url: `${bareGuarded.url}/${path}/status?address=${owner.address}`,
        headers,
      });
      const authGuard = { key: guarded('key', credentials.key), jwt: guarded('jwt', credentials.jwt) };
      const attempt = {
        key: guarded('attempt/key', credentials.key),
        jwt: guarded('attempt/jwt', credentials.jwt),
        cookie: guarded('attempt/jwt', credentials.cookie),
      };
      // Each status row takes turns with the reference in the service's form, for its credential.
      const reads = [
        ['GET /health', { path: '/health' }],
        ['GET /subscriptions/status (API key)', { path: statusPath, headers: credentials.key }, attempt.key],
        [
          'GET /entitlements?feature=… (API key)',
          { path: entitlementPath, headers: credentials.key },
          attempt.key,
        ],
        [
          'GET /subscriptions/status (JWT header)',
          { path: statusPath, headers: credentials.jwt },
          attempt.jwt,
        ],
        [
          'GET /subscriptions/status (cookie)',
          { path: statusPath, headers: credentials.cookie },
          attempt.cookie,
        ],
      ];
      // Warm-up, not recorded: the first seconds of a fresh process measure its JIT compiler and its young heap
      // growing, not its steady state (here a route's CPU per request was still falling after ten seconds).
      phase('reads: warming up every server and route, about a minute', 'the reference rows');
      await load({ url: raw.url, duration: 2 });
      await load({ url: `${bareNest.url}/health`, duration: 4 });
      await load({ url: `${bareLogged.url}/health`, duration: 4 });
      for (const [, request] of reads) await load({ ...serviceRequest(request), duration: 4 });
      for (const request of [...Object.values(authGuard), ...Object.values(attempt)]) {
        await load({ ...request, duration: 4 });
      }
      const rowTime = (targets) =>
        `${targets} servers taking turns, ${READ_ROUNDS} rounds, ${targets * DURATION} s`;
      phase(`reads: the bare NestJS route, ${rowTime(3)}`, 'the routes behind passport');
      // The framework's floor: a bare NestJS route on Fastify answering the same constant as raw.
      const [rawBare, bare, bareWithLog] = await alternate(
        [{ url: raw.url }, { url: `${bareNest.url}/health` }, { url: `${bareLogged.url}/health` }],
        READ_ROUNDS,
      );
      record('reference: a bare NestJS route on Fastify (a constant)', bare, rawBare);
      record('reference: the bare route and the request log line', bareWithLog, rawBare, {}, bare);
      const guardedReferences = [
        ["passport's AuthGuard (API key, passport-custom)", authGuard.key],
        ["passport's AuthGuard (session JWT, passport-jwt)", authGuard.jwt],
        ['the strategy run once, as the service does (API key)', attempt.key],
        ['the strategy run once, as the service does (session JWT)', attempt.jwt],
      ];
      phase(`reads: the bare route behind passport, ${rowTime(3 + guardedReferences.length)}`, 'GET /health');
      const [rawGuarded, bareForGuarded, loggedForGuarded, ...guardedRuns] = await alternate(
        [
          { url: raw.url },
          { url: `${bareNest.url}/health` },
          { url: `${bareLogged.url}/health` },
          ...guardedReferences.map(([, request]) => request),
        ],
        READ_ROUNDS,
      );
      for (const [index, [form]] of guardedReferences.entries()) {
        record(
          `reference: the bare route and log line behind ${form}`,
          guardedRuns[index],
          rawGuarded,
          {},
          bareForGuarded,
          loggedForGuarded,
        );
      }
      phase(`reads: GET /health just started, ${rowTime(4)}`, `the instance working for ${SETTLE_SECONDS} s`);
      await sideBySide('GET /health, just started', reads[0][1]);
      phase(
        `reads: ${RUNNING_WALLETS} wallets sign in, make keys, renew with a webhook, then ${SETTLE_SECONDS} s of light traffic`,
        'the read rows',
      );
      // What users run is an instance that has been working: wallets signed in, keys made and used, renewals with
      // their webhooks delivered, and its background loops (delivery polling, sweeps, invalidation reads) running.
      await runningState(service.url, SETTLE_SECONDS);
      for (const [index, [name, request, reference]] of reads.entries()) {
        phase(`reads: ${name}, ${rowTime(reference ? 5 : 4)}`, reads[index + 1]?.[0] ?? after('reads'));
        await sideBySide(name, request, reference);
      }
    }

    if (CASES.has('renew')) {
      phase(`renew: one address, then a new address each, ${DURATION} s each`, after('renew'));
      // Renew under contention (one address) and spread (a new address per request, as an operator would).
      const renewOne = await load({
        url: `${service.url}/subscriptions/renew`,
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${manageKey}` },
        body: JSON.stringify({}),
      });
      record('POST /subscriptions/renew (one address, row lock contention)', renewOne, null);
      let next = 0;
      const renewMany = await load({
        url: `${service.url}/subscriptions/renew`,
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${manageKey}` },
        requests: [
          {
            setupRequest: (request) => ({
              ...request,
              body: JSON.stringify({ address: `0x${(0xbe0000000 + next++).toString(16).padStart(40, '0')}` }),
            }),
          },
        ],
      });
      record('POST /subscriptions/renew (a new address each, operator key)', renewMany, null);
    }

    if (CASES.has('delivery')) {
      phase('delivery: sustained renewals with a webhook each, against pgbench (minutes)', after('delivery'));
      // Sustained renewals, each owed to a webhook, against pgbench's limit on the same database (bench/delivery.mjs).
      const rows = await benchDelivery({
        root,
        nodeFlags: NODE_FLAGS,
        adminUrl: database.url,
        startService,
        login,
        createKey,
        operator: owner,
        jwtSecret: JWT_SECRET,
      });
      for (const { rawRps, ratio, ...row } of rows) {
        results.push({ ...row, rawRps, ratio });
        console.log(JSON.stringify(row));
      }
    }

    if (CASES.has('verify')) {
      phase(
        'verify: preparing signed challenges, then logins against two instances in rounds',
        after('verify'),
      );
      // POST /auth/verify for EOA logins: each request consumes its own challenge, prepared beforehand. The service
      // as configured (signers recovered on worker threads, AUTH_VERIFY_THREADS defaults to the cores, at most 4) and
      // a second instance on the same database with recovery on its event loop (AUTH_VERIFY_THREADS=0).
      inLoop = await startService(database.url, { AUTH_VERIFY_THREADS: '0', WEBHOOK_WORKERS: 'false' });
      const ROUNDS = 3;
      const PER_RUN = Number(process.env.BENCH_VERIFY_PER_RUN ?? 800);
      const samples = [];
      const MIXED = Number(process.env.BENCH_VERIFY_MIXED ?? 600);
      const WARM_UP = 300;
      for (let i = 0; i < (WARM_UP + ROUNDS * PER_RUN) * 2 + MIXED * 2; i++) {
        const account = privateKeyToAccount(generatePrivateKey());
        const nonce = await (
          await fetch(`${service.url}/auth/nonce`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ address: account.address }),
          })
        ).json();
        samples.push({
          address: account.address,
          message: nonce.message,
          signature: await account.signMessage({ message: nonce.message }),
        });
      }
      let next = 0;
      /** `amount` logins against one instance, timed from the first request to the last answer. */
      const verifyLoad = async (instance, amount) => {
        // Timed from the first request to the last answer: autocannon's own duration for a fixed amount of
        // requests ends on its next one-second tick, which understated this rate by up to a third.
        const started = performance.now();
        let lastAnswer = started;
        const result = await new Promise((resolve, reject) => {
          const run = autocannon(
            {
              url: `${instance.url}/auth/verify`,
              method: 'POST',
              connections: CONNECTIONS,
              headers: { 'content-type': 'application/json' },
              amount,
              requests: [
                { setupRequest: (request) => ({ ...request, body: JSON.stringify(samples[next++]) }) },
              ],
            },
            (error, finished) => (error ? reject(error) : resolve(finished)),
          );
          run.on('response', () => (lastAnswer = performance.now()));
        });
        return { result, seconds: (lastAnswer - started) / 1000 };
      };
      // Warm-up, not recorded, as for the reads: the baseline's first recoveries build the curve's precomputed
      // tables and compile the arithmetic, and so do each instance's recovery threads.
      await verifyBaseline(samples, 1);
      for (const instance of [service, inLoop]) await verifyLoad(instance, WARM_UP);
      // Baseline and both services alternate in rounds, so a drift in the machine's speed (it is shared) hits all
      // alike; each side's rate is its total work over its total time.
      const baseline = { done: 0, seconds: 0, rounds: [] };
      const served = new Map([
        [service, { done: 0, seconds: 0, p50: [], p99: [], errors: 0 }],
        [inLoop, { done: 0, seconds: 0, p50: [], p99: [], errors: 0 }],
      ]);
      for (let round = 0; round < ROUNDS; round++) {
        const base = await verifyBaseline(samples, DURATION / ROUNDS);
        baseline.rounds.push(Math.round(base.done / base.seconds));
        baseline.done += base.done;
        baseline.seconds += base.seconds;
        for (const [instance, totals] of served) {
          const { result, seconds } = await verifyLoad(instance, PER_RUN);
          totals.done += result.requests.total;
          totals.seconds += seconds;
          totals.p50.push(result.latency.p50);
          totals.p99.push(result.latency.p99);
          totals.errors += result.errors + result.timeouts + (result.non2xx ?? 0);
        }
      }
      // What a burst of logins does to everything else an instance serves: status reads (8 connections) while logins
      // run (32 connections), on each instance. On the event loop, every login holds every other request for the
      // whole recovery.
      const mixed = new Map();
      for (const instance of [service, inLoop]) {
        const logins = verifyLoad(instance, MIXED);
        const reads = await load({
          url: `${instance.url}${statusPath}`,
          headers: { authorization: `Bearer ${key}` },
          connections: 8,
          duration: 2,
        });
        await logins;
        mixed.set(instance, reads);
      }
      await inLoop.stop();
      const baselineRate = { rps: Math.round(baseline.done / baseline.seconds), rounds: baseline.rounds };
      for (const [instance, totals] of served) {
        record(
          instance === service
            ? 'POST /auth/verify (EOA) vs in-process verifyMessage'
            : 'POST /auth/verify (EOA), recovery on the event loop (AUTH_VERIFY_THREADS=0)',
          {
            rps: Math.round(totals.done / totals.seconds),
            p50: Math.max(...totals.p50),
            p99: Math.max(...totals.p99),
            errors: totals.errors,
          },
          baselineRate,
          { baseline: 'viem verifyMessage in-process' },
        );
      }
      for (const [instance, reads] of mixed) {
        record(
          instance === service
            ? 'GET /subscriptions/status (API key) during a login burst'
            : 'GET /subscriptions/status (API key) during a login burst, recovery on the event loop',
          reads,
          null,
        );
      }
    }

    if (CASES.has('scale')) {
      phase(
        `scale: loading ${LARGE_SUBSCRIPTIONS} subscriptions and ${LARGE_KEYS} keys (minutes), then reads side by side`,
        after('scale'),
      );
      // Scale of data, side by side: a second instance on a second database that holds a million subscriptions and
      // 100 000 keys (vacuumed, analysed and checkpointed before it starts), alternating with raw and with the first
      // instance (a few thousand rows) in rounds, so a drift in the machine's speed hits all three alike. Measured one
      // after the other a minute apart, as earlier benches did, the machine's drift alone moved the figure by ±40 %.
      const largeUrl = new URL(database.url);
      largeUrl.pathname = '/tollgate_large';
      const admin = new pg.Client({ connectionString: database.url });
      await admin.connect();
      await admin.query('CREATE DATABASE tollgate_large');
      await admin.end();
      await runMigrations(largeUrl.href);
      await seedBulk(largeUrl.href, LARGE_SUBSCRIPTIONS, LARGE_KEYS);
      largeInstance = await startService(largeUrl.href, {
        OPERATOR_ADDRESSES: owner.address,
        WEBHOOK_WORKERS: 'false',
      });
      const largeSession = await login(largeInstance.url, owner);
      const largeKey = await createKey(largeInstance.url, largeSession.token, ['READ_ONLY']);
      // The same answer on both sides: an active subscription.
      await renew(largeInstance.url, largeSession.token, owner.address);
      const smallRequest = {
        url: `${service.url}${statusPath}`,
        headers: { authorization: `Bearer ${key}` },
      };
      const largeRequest = {
        url: `${largeInstance.url}${statusPath}`,
        headers: { authorization: `Bearer ${largeKey}` },
      };
      for (const request of [smallRequest, largeRequest]) await load({ ...request, duration: 4 });
      const [rawScale, small, large] = await alternate([{ url: raw.url }, smallRequest, largeRequest], 3);
      record('GET /subscriptions/status (API key), small database', small, rawScale);
      record(
        `GET /subscriptions/status (API key), ${LARGE_SUBSCRIPTIONS} subscriptions + ${LARGE_KEYS} keys`,
        large,
        rawScale,
        { vsSmall: +(large.rps / small.rps).toFixed(3) },
      );
      // A key never seen by that instance: the first request looks it up in the 100 000-key index.
      const freshKeys = [];
      for (let i = 0; i < 200; i++) {
        freshKeys.push(await createKey(largeInstance.url, largeSession.token, ['READ_ONLY']));
      }
      const coldStarted = performance.now();
      for (const fresh of freshKeys) {
        await fetch(`${largeInstance.url}${statusPath}`, { headers: { authorization: `Bearer ${fresh}` } });
      }
      record(
        'first use of a key among 100 000 (uncached lookup), sequential',
        {
          rps: Math.round(freshKeys.length / ((performance.now() - coldStarted) / 1000)),
          p50: null,
          p99: null,
          errors: 0,
        },
        null,
      );
    }

    if (CASES.has('tracing')) {
      // What tracing costs: two fresh instances on this database, one without OTEL_EXPORTER_OTLP_ENDPOINT and one
      // exporting every span (default sampler: all) to a local OTLP sink, alternating with raw in rounds.
      const sink = await startReference('otlp-sink.mjs');
      tracingInstances = [
        { stop: async () => sink.stop() },
        await startService(database.url, { WEBHOOK_WORKERS: 'false' }),
        await startService(database.url, { WEBHOOK_WORKERS: 'false', OTEL_EXPORTER_OTLP_ENDPOINT: sink.url }),
      ];
      const [, off, on] = tracingInstances.map((instance) => ({
        url: `${instance.url}${statusPath}`,
        headers: credentials.key,
      }));
      for (const request of [off, on]) await load({ ...request, duration: 4 });
      const [rawTracing, offRun, onRun] = await alternate([{ url: raw.url }, off, on], READ_ROUNDS);
      record('GET /subscriptions/status (API key), tracing off', offRun, rawTracing);
      record('GET /subscriptions/status (API key), tracing on (OTLP to a local sink)', onRun, rawTracing, {
        vsTracingOff: +(onRun.rps / offRun.rps).toFixed(3),
      });
    }

    let autoRenew;
    if (CASES.has('autorenew')) {
      phase(
        'autorenew: mandates due at once, charged on the in-process EVM, in rounds (minutes)',
        after('autorenew'),
      );
      autoRenew = await benchAutoRenew({
        root,
        adminUrl: database.url,
        startService,
        login,
        log: (line) => phase(line),
      });
      console.log(JSON.stringify(autoRenew));
    }

    const rss = rssMb(service.child.pid);
    const summary = {
      cores: cpus().length,
      cpu: cpus()[0].model,
      memoryGb: Math.round(totalmem() / 2 ** 30),
      // Every process of the run (service, references, load generator) runs this node; the figures depend on it.
      node: process.version,
      generator: SETUP,
      durationSeconds: DURATION,
      connections: CONNECTIONS,
      serviceRssMb: rss,
      at: new Date().toISOString(),
      runId: randomUUID(),
    };
    phase('writing bench/results/latest.json, latest.md and latest.svg');
    writeFileSync(join(root, 'bench/results/latest.svg'), ratioChart(results, summary));
    writeFileSync(
      join(root, 'bench/results/latest.json'),
      JSON.stringify({ summary, results, ...(autoRenew ? { autoRenew } : {}) }, null, 2) + '\n',
    );
    const noise = (row) =>
      row.baselineSpread === null || row.baselineSpread === undefined
        ? ''
        : `${Math.round(row.baselineSpread * 100)} %${row.unreliable ? ' (unreliable)' : ''}`;
    const guardedCell = (row) =>
      row.ratioToGuarded === null || row.ratioToGuarded === undefined
        ? ''
        : `${row.ratioToGuarded} (of ${row.guardedRps}, spread ${percent(row.guardedSpread)}${row.guardedErrors > 0 ? `, ${row.guardedErrors} errors` : ''}${row.guardedUnreliable ? ', unreliable' : ''})`;
    const percent = (value) => (value === null || value === undefined ? '' : `${Math.round(value * 100)} %`);
    const deliveryRows = results.filter((row) => row.deliveriesPerSecond !== undefined);
    const lines = [
      `Measured ${summary.at} on ${summary.cores} cores (${summary.cpu}) with Node.js ${summary.node}, ${CONNECTIONS} connections, ${DURATION} s per run, service and PostgreSQL and load generator on the same machine (load generator: ${SETUP}). Service RSS after the run: ${rss} MB. Baseline spread: how far the baseline's rate moved between rounds (max − min over min); a ratio is flagged unreliable past ${NOISE_LIMIT * 100} %.`,
      '',
      'The ratios as a chart: [latest.svg](latest.svg).',
      '',
      '| case | req/s | p50 ms | p99 ms | baseline req/s | ratio | baseline spread | bare NestJS req/s | ratio to bare | ratio to bare + log line | ratio to bare + log line + passport as the service runs it | service spread |',
      '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
      ...results.map(
        (row) =>
          `| ${row.name} | ${row.rps}${row.errors > 0 ? ` (${row.errors} errors)` : ''} | ${row.p50 ?? ''} | ${row.p99 ?? ''} | ${row.rawRps ?? ''} | ${row.ratio ?? ''}${row.vsSmall ? ` (vs small database, side by side: ${row.vsSmall})` : ''} | ${noise(row)} | ${row.bareRps ?? ''} | ${row.ratioToBare ?? ''} | ${row.ratioToBareLogged ?? ''} | ${guardedCell(row)} | ${percent(row.serviceSpread)} |`,
      ),
    ];
    if (deliveryRows.length > 0) {
      lines.push(
        '',
        'Webhook delivery under the renew load (req/s above = renewals/s; p50/p99 = event recorded in the renewal transaction → receiver, an upper bound of commit → receiver; worst round):',
        '',
        '| worker processes | renewals/s | deliveries/s during the load | queue depth at the end | s until empty | p50 ms | p99 ms | undelivered + errors | duplicates | API CPU ms / renewal | worker CPU ms / delivery |',
        '| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
        ...deliveryRows.map(
          (row) =>
            `| ${row.rounds[0].workers} | ${row.rps} | ${row.deliveriesPerSecond} | ${row.queueDepthAtEnd} | ${row.secondsUntilEmpty ?? 'not within 180 s'} | ${row.p50} | ${row.p99} | ${row.errors} | ${row.duplicates} | ${row.writerCpuMsPerRenewal} | ${row.workerCpuMsPerDelivery} |`,
        ),
      );
    }
    if (autoRenew) {
      lines.push(
        '',
        `Automatic renewal (bench/auto-renew.mjs): ${autoRenew.name}; from the moment all are due (the sweep runs every 5 s) until the last period is credited, and the CPU of the service (its keeper) and of the chain process meanwhile, per charge. Defects: charges reconciled against the chain's Transfer and Charged logs (duplicates, missing, a transfer without its credit or the reverse); must be 0.`,
        '',
        '| round | mandates | lead s | s until the first credit | s until the last | charges/s | service CPU ms / charge | chain CPU ms / charge | transfers | payments | expired uncharged | duplicates | set-up s |',
        '| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
        ...autoRenew.rounds.map(
          (row, i) =>
            `| ${i + 1} | ${row.mandates} | ${row.leadSeconds} | ${row.firstCreditSeconds ?? ''} | ${row.lastCreditSeconds ?? `not all`} | ${row.chargesPerSecond ?? ''} | ${row.serviceCpuMsPerCharge} | ${row.chainCpuMsPerCharge} | ${row.transfers} | ${row.payments} | ${row.expiredUncharged} | ${row.duplicates} | ${row.setupSeconds} |`,
        ),
        '',
        `Spread of the time until the last credit between rounds: ${percent(autoRenew.lastCreditSpread)}; defects in all rounds: ${autoRenew.defects}.`,
      );
    }
    // Formatted as `npm run lint` expects it, so a run can be committed as it was written.
    const mdFile = join(root, 'bench/results/latest.md');
    const markdown = await prettier.format(lines.join('\n') + '\n', {
      ...(await prettier.resolveConfig(mdFile)),
      filepath: mdFile,
    });
    writeFileSync(mdFile, markdown);
    console.log(markdown);
  } finally {
    if (inLoop && inLoop.child.exitCode === null) await inLoop.stop();
    if (largeInstance && largeInstance.child.exitCode === null) await largeInstance.stop();
    for (const instance of tracingInstances) await instance.stop();
    await service.stop();
    raw.stop();
    bareNest.stop();
    bareLogged.stop();
    bareGuarded?.stop();
    await database.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (PINNED && !process.env.BENCH_PINNED) {
  // The whole run on core 0, so every server it starts inherits it; wrk is started on core 1.
  const child = spawn(
    'taskset',
    ['-c', '0', process.execPath, ...process.execArgv, fileURLToPath(import.meta.url)],
    {
      stdio: 'inherit',
      env: { ...process.env, BENCH_PINNED: '1' },
    },
  );
  child.once('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
} else {
  await main();
}
