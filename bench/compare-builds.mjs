// Protected reads of two builds of the service side by side, for "before and after" figures on a shared machine:
//   git worktree add --detach /tmp/before <commit> && (cd /tmp/before && npm ci && npm run build)
//   npm run build && BASELINE_ROOT=/tmp/before node bench/compare-builds.mjs
// Both builds run as `npm start` runs them (bench/service.mjs: default settings) on one embedded PostgreSQL (a
// database each, migrated by its own build) and take turns in rounds on each read, so a drift in the machine's speed hits both alike.
// BEFORE_NODE_OPTIONS / AFTER_NODE_OPTIONS add node options to one side: with BASELINE_ROOT=. the same build with and
// without a preload (bench/request-context.mjs). Each round also reads the service process's CPU time (user + system,
// /proc), so the CPU per request is reported beside the rate: on a shared machine it moves far less than the rate.
// BEFORE_ENV / AFTER_ENV (`K=V,K=V`) set settings on one side: with BASELINE_ROOT=. the same build in two
// configurations (`AFTER_ENV=CACHE_COHERENCE=acknowledged`).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import pg from 'pg';
import { pino } from 'pino';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { startEmbeddedPostgres } from '../dist/src/database/embedded-postgres.js';
import { cpuSeconds, postJson as post } from './api.mjs';
import { startService as startBenchService } from './service.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const baselineRoot = process.env.BASELINE_ROOT;
if (!baselineRoot) throw new Error('BASELINE_ROOT: the checkout whose dist/ is the "before" build');
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const DURATION = Number(process.env.BENCH_DURATION ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
/** `K=V,K=V` as an object (BEFORE_ENV / AFTER_ENV: settings of one side, e.g. `CACHE_COHERENCE=acknowledged`). */
const settings = (list) =>
  Object.fromEntries(
    (list ?? '')
      .split(',')
      .filter(Boolean)
      .map((pair) => pair.split('=')),
  );
/** Each build as its own `npm start` runs it (its node flags), default settings but for BEFORE_ENV / AFTER_ENV. */
const startService = (checkout, databaseUrl, nodeOptions, env) =>
  startBenchService({
    checkout,
    databaseUrl,
    env: { ...(nodeOptions ? { NODE_OPTIONS: nodeOptions } : {}), ...settings(env) },
  });

/** A session, a read-only key and a subscription on one instance: the three ways to read a status. */
async function credentials(url) {
  const account = privateKeyToAccount(generatePrivateKey());
  const { body: nonce } = await post(url, '/auth/nonce', { address: account.address });
  const signature = await account.signMessage({ message: nonce.message });
  const { body, cookie } = await post(url, '/auth/verify', {
    address: account.address,
    signature,
    message: nonce.message,
  });
  const { body: key } = await post(url, '/api-keys', { label: 'bench', scopes: ['READ_ONLY'] }, body.token);
  await post(url, '/subscriptions/renew', {}, body.token);
  const path = `/subscriptions/status?address=${account.address}`;
  return {
    'API key': { url: `${url}${path}`, headers: { authorization: `Bearer ${key.key}` } },
    'JWT header': { url: `${url}${path}`, headers: { authorization: `Bearer ${body.token}` } },
    cookie: { url: `${url}${path}`, headers: { cookie } },
  };
}

/** Requests per second, and the service's CPU milliseconds per request, over one run. */
async function rate(target, duration) {
  const cpuBefore = cpuSeconds(target.pid);
  const result = await autocannon({
    url: target.url,
    headers: target.headers,
    connections: CONNECTIONS,
    duration,
  });
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${target.url}: errors under load`);
  const cpuMsPerRequest = ((cpuSeconds(target.pid) - cpuBefore) * 1000) / result.requests.total;
  return { rps: Math.round(result.requests.average), cpuMs: +cpuMsPerRequest.toFixed(4) };
}

const database = await startEmbeddedPostgres(
  mkdtempSync(join(tmpdir(), 'tollgate-compare-')),
  pino({ level: 'warn' }),
);
const admin = new pg.Client({ connectionString: database.url });
await admin.connect();
await admin.query('CREATE DATABASE bench_before');
await admin.query('CREATE DATABASE bench_after');
await admin.end();
const withDatabase = (name) => database.url.replace(/\/[^/]*$/, `/${name}`);
const before = await startService(
  baselineRoot,
  withDatabase('bench_before'),
  process.env.BEFORE_NODE_OPTIONS,
  process.env.BEFORE_ENV,
);
const after = await startService(
  root,
  withDatabase('bench_after'),
  process.env.AFTER_NODE_OPTIONS,
  process.env.AFTER_ENV,
);
const withPid = (targets, pid) =>
  Object.fromEntries(Object.entries(targets).map(([name, target]) => [name, { ...target, pid }]));
try {
  const reads = {
    before: withPid(await credentials(before.url), before.child.pid),
    after: withPid(await credentials(after.url), after.child.pid),
  };
  for (const [name, target] of Object.entries(reads.before)) {
    const pair = [target, reads.after[name]];
    for (const side of pair) await rate(side, 3); // warm-up, not recorded
    const rounds = [[], []];
    for (let round = 0; round < ROUNDS; round++) {
      for (const [index, side] of pair.entries()) rounds[index].push(await rate(side, DURATION));
    }
    const mean = (values) => values.reduce((sum, value) => sum + value, 0) / values.length;
    const rps = rounds.map((side) => side.map((round) => round.rps));
    const cpu = rounds.map((side) => side.map((round) => round.cpuMs));
    console.log(
      JSON.stringify({
        read: `GET /subscriptions/status (${name})`,
        node: process.version,
        beforeRps: Math.round(mean(rps[0])),
        afterRps: Math.round(mean(rps[1])),
        ratio: +(mean(rps[1]) / mean(rps[0])).toFixed(3),
        beforeCpuMsPerRequest: +mean(cpu[0]).toFixed(4),
        afterCpuMsPerRequest: +mean(cpu[1]).toFixed(4),
        cpuRatio: +(mean(cpu[1]) / mean(cpu[0])).toFixed(3),
        beforeRounds: rps[0],
        afterRounds: rps[1],
        beforeCpuRounds: cpu[0],
        afterCpuRounds: cpu[1],
      }),
    );
  }
} finally {
  await after.stop();
  await before.stop();
  await database.stop();
}
