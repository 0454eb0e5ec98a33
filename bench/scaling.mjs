// npm run bench:scaling: what coordination and requests cost the database as instances are added. Starts 1, 2, 4
// and 8 instances of the built service (`npm run build` first) on one embedded PostgreSQL, optionally through
// Debian's PgBouncer in transaction mode (SCALE_POOLER=pgbouncer), and for each count measures, per instance,
// reads of the cache invalidation log per second (the service's own metric), idle, under a read load and under a
// write load, with the database's transactions per second (pg_stat_database) and the machine's load beside them.
//
// Settings (environment): SCALE_INSTANCES (1,2,4,8), SCALE_SECONDS per phase (10), SCALE_CONNECTIONS of the read
// load in all, spread over the instances (32), SCALE_WRITE_CONNECTIONS of the write load in all (8), SCALE_POOLER
// (none | pgbouncer), SCALE_POOL_SIZE per instance (the service's default), SCALE_SERVER_POOL (PgBouncer's
// default_pool_size, 20), SCALE_COHERENCE (the instances' CACHE_COHERENCE: barrier | acknowledged; behind PgBouncer
// acknowledged gets DATABASE_SESSION_URL to PostgreSQL itself).
// Writes bench/results/scaling[-pgbouncer][-acknowledged].{json,md}.
//
// The loads: `GET /subscriptions/status` with a READ_ONLY API key (a cached read behind the barrier), and
// `POST /subscriptions/renew` of a new address each with an operator's key (each one a committed change that every
// instance must apply), both by wrk (one process per instance, one thread). Delivery workers are off in the
// instances (WEBHOOK_WORKERS=false): their polling is not coordination and is measured elsewhere.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { pino } from 'pino';
import prettier from 'prettier';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { startEmbeddedPostgres } from '../dist/src/database/embedded-postgres.js';
import { runMigrations } from '../dist/src/database/migrate.js';
import { freePort } from '../dist/src/common/net/free-port.js';
import { signIn } from './api.mjs';
import { PGBOUNCER, startPgBouncer } from '../test/utils/pgbouncer.mjs';
import { startService } from './service.mjs';

const COUNTS = (process.env.SCALE_INSTANCES ?? '1,2,4,8').split(',').map(Number);
const SECONDS = Number(process.env.SCALE_SECONDS ?? 10);
const READ_CONNECTIONS = Number(process.env.SCALE_CONNECTIONS ?? 32);
const WRITE_CONNECTIONS = Number(process.env.SCALE_WRITE_CONNECTIONS ?? 8);
const POOLER = process.env.SCALE_POOLER ?? 'none';
const POOL_SIZE = process.env.SCALE_POOL_SIZE;
const SERVER_POOL = Number(process.env.SCALE_SERVER_POOL ?? 20);
const COHERENCE = process.env.SCALE_COHERENCE ?? 'barrier';
const root = new URL('..', import.meta.url).pathname;
const started = Date.now();
const say = (text) => console.log(`[${((Date.now() - started) / 1000).toFixed(0)} s] ${text}`);

/** Busy and total jiffies of the whole machine (/proc/stat), for its CPU use over a phase. */
function cpuTimes() {
  const [, ...fields] = execFileSync('head', ['-1', '/proc/stat'], { encoding: 'utf8' }).trim().split(/\s+/);
  const values = fields.map(Number);
  const idle = values[3] + values[4];
  const total = values.reduce((sum, value) => sum + value, 0);
  return { busy: total - idle, total };
}

/**
 * CPU seconds used by a process so far (/proc/<pid>/stat utime + stime), with `reaped` those of its children that
 * have exited (cutime + cstime).
 */
function processCpu(pid, reaped = false) {
  try {
    const stat = execFileSync('cat', [`/proc/${pid}/stat`], { encoding: 'utf8' });
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const own = Number(fields[11]) + Number(fields[12]);
    return (own + (reaped ? Number(fields[13]) + Number(fields[14]) : 0)) / 100;
  } catch {
    return 0;
  }
}

/** CPU seconds used so far by PostgreSQL: the postmaster, its live backends and those that have exited. */
function postgresCpu(postmaster) {
  const children = execFileSync('ps', ['-o', 'pid=', '--ppid', String(postmaster)], { encoding: 'utf8' })
    .split('\n')
    .map((line) => Number(line.trim()))
    .filter((pid) => pid > 0);
  return children.reduce((sum, pid) => sum + processCpu(pid), processCpu(postmaster, true));
}

/** The postmaster's pid, from the first line of postmaster.pid under `dir`. */
function postmasterPid(dir) {
  const file = execFileSync('find', [dir, '-name', 'postmaster.pid'], { encoding: 'utf8' })
    .trim()
    .split('\n')[0];
  return Number(readFileSync(file, 'utf8').split('\n')[0]);
}

/** The other processes' share of the machine: the top CPU users right now that are not ours. */
function otherLoad(ours) {
  const lines = execFileSync('ps', ['-eo', 'pid,pcpu,comm', '--sort=-pcpu'], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .slice(1);
  return lines
    .map((line) => line.trim().split(/\s+/))
    .filter(([pid, cpu]) => !ours.has(Number(pid)) && Number(cpu) >= 5)
    .slice(0, 5)
    .map(([, cpu, comm]) => `${comm} ${cpu}%`)
    .join(', ');
}

async function scrape(instance) {
  const text = await (await fetch(`http://127.0.0.1:${instance.metricsPort}/metrics`)).text();
  const value = (name) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
  return {
    reads: value('tollgate_cache_invalidation_reads_total'),
    applied: value('tollgate_cache_invalidations_applied_total'),
    // CACHE_COHERENCE=acknowledged only (NaN otherwise): commits that waited, and how long in all.
    waits: value('tollgate_cache_acknowledgement_waits_total'),
    waitSeconds: value('tollgate_cache_acknowledgement_wait_seconds_total'),
    cpu: processCpu(instance.child.pid),
  };
}

async function databaseCounters(client) {
  const { rows } = await client.query(
    `SELECT xact_commit + xact_rollback AS xacts FROM pg_stat_database WHERE datname = current_database()`,
  );
  return { xacts: Number(rows[0].xacts) };
}

function wrk(url, { connections, seconds, headers = {}, script }) {
  const args = ['-t1', `-c${Math.max(1, connections)}`, `-d${seconds}s`];
  for (const [name, value] of Object.entries(headers)) args.push('-H', `${name}: ${value}`);
  if (script) args.push('-s', script);
  return new Promise((resolve, reject) => {
    const child = spawn('wrk', [...args, url], { stdio: ['ignore', 'pipe', 'inherit'] });
    let text = '';
    child.stdout.on('data', (chunk) => (text += chunk));
    child.once('error', reject);
    child.once('close', (code) => {
      if (code !== 0) return reject(new Error(`wrk exited ${code}: ${text}`));
      const requests = Number(/(\d+) requests in/.exec(text)[1]);
      const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(text)?.[1] ?? 0);
      resolve({ requests, non2xx, pid: child.pid });
    });
  });
}

/** A wrk script that renews a new address per request, distinct per instance (`prefix`, 8 hex digits). */
function renewScript(dir, prefix, key) {
  const path = join(dir, `renew-${prefix}.lua`);
  writeFileSync(
    path,
    `counter = 0
wrk.method = "POST"
wrk.headers["content-type"] = "application/json"
wrk.headers["authorization"] = "Bearer ${key}"
request = function()
  counter = counter + 1
  local body = string.format('{"address":"0x%s%s%024x"}', "${prefix}", "${randomBytes(4).toString('hex')}", counter)
  return wrk.format(nil, nil, nil, body)
end
`,
  );
  return path;
}

async function post(url, path, token, body) {
  const response = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
  return response.json();
}

async function main() {
  if (POOLER === 'pgbouncer' && !existsSync(PGBOUNCER)) throw new Error(`${PGBOUNCER} is missing`);
  const dir = mkdtempSync(join(tmpdir(), 'tollgate-scaling-'));
  mkdirSync(join(dir, 'pg'));
  const database = await startEmbeddedPostgres(join(dir, 'pg'), pino({ level: 'warn' }));
  await runMigrations(database.url);
  const bouncer =
    POOLER === 'pgbouncer'
      ? await startPgBouncer({ databaseUrl: database.url, serverPoolSize: SERVER_POOL, maxClients: 1000 })
      : null;
  const serviceUrl = bouncer ? bouncer.url : database.url;
  const stats = new pg.Client({ connectionString: database.url });
  await stats.connect();
  const operator = privateKeyToAccount(generatePrivateKey());
  const jwtSecret = randomBytes(48).toString('base64url');
  const postmaster = postmasterPid(join(dir, 'pg'));
  const env = {
    OPERATOR_ADDRESSES: operator.address,
    WEBHOOK_WORKERS: 'false',
    LOG_LEVEL: 'warn',
    EVENTS_MAX_PER_WALLET_PER_DAY: '1000000',
    ...(bouncer ? { DATABASE_POOLER: 'transaction' } : {}),
    CACHE_COHERENCE: COHERENCE,
    ...(bouncer && COHERENCE === 'acknowledged' ? { DATABASE_SESSION_URL: database.url } : {}),
    ...(POOL_SIZE ? { DATABASE_POOL_SIZE: POOL_SIZE } : {}),
  };
  const instances = [];
  const startInstance = async () => {
    const metricsPort = await freePort();
    const service = await startService({
      databaseUrl: serviceUrl,
      jwtSecret,
      env: { ...env, METRICS_PORT: String(metricsPort) },
    });
    instances.push({ ...service, metricsPort });
  };
  const results = [];
  try {
    say(
      `database up${bouncer ? ', PgBouncer in transaction mode in front' : ''}; starting the first instance`,
    );
    await startInstance();
    const { token } = await signIn(instances[0].url, operator);
    const readKey = (
      await post(instances[0].url, '/api-keys', token, { label: 'reads', scopes: ['READ_ONLY'] })
    ).key;
    const writeKey = (
      await post(instances[0].url, '/api-keys', token, { label: 'writes', scopes: ['SUBSCRIPTIONS_MANAGE'] })
    ).key;
    await post(instances[0].url, '/subscriptions/renew', token, {});
    const statusPath = `/subscriptions/status?address=${operator.address}`;

    for (const count of COUNTS) {
      while (instances.length < count) {
        say(`starting instance ${instances.length + 1}`);
        await startInstance();
      }
      const active = instances.slice(0, count);
      const ours = new Set([process.pid, postmaster, ...instances.map((i) => i.child.pid)]);
      const phases = {
        idle: () => new Promise((resolve) => setTimeout(() => resolve([]), SECONDS * 1000)),
        reads: () =>
          Promise.all(
            active.map((instance) =>
              wrk(`${instance.url}${statusPath}`, {
                connections: Math.round(READ_CONNECTIONS / count),
                seconds: SECONDS,
                headers: { authorization: `Bearer ${readKey}` },
              }),
            ),
          ),
        writes: () =>
          Promise.all(
            active.map((instance, index) =>
              wrk(`${instance.url}/subscriptions/renew`, {
                connections: Math.max(1, Math.round(WRITE_CONNECTIONS / count)),
                seconds: SECONDS,
                script: renewScript(dir, (0xb0000000 + index).toString(16), writeKey),
              }),
            ),
          ),
      };
      for (const [phase, run] of Object.entries(phases)) {
        say(`${count} instance(s): ${phase}, ${SECONDS} s`);
        const load1 = loadavg()[0];
        const before = await Promise.all(active.map(scrape));
        const db0 = await databaseCounters(stats);
        const cpu0 = cpuTimes();
        const pg0 = postgresCpu(postmaster);
        const t0 = performance.now();
        const loads = await run();
        const seconds = (performance.now() - t0) / 1000;
        const cpu1 = cpuTimes();
        const pg1 = postgresCpu(postmaster);
        const after = await Promise.all(active.map(scrape));
        // Let the backends flush their statistics (at most once a second when busy).
        await new Promise((resolve) => setTimeout(resolve, 1200));
        const db1 = await databaseCounters(stats);
        const perInstance = active.map((_, i) => ({
          readsPerSecond: (after[i].reads - before[i].reads) / seconds,
          appliedPerSecond: (after[i].applied - before[i].applied) / seconds,
          cpuPercent: ((after[i].cpu - before[i].cpu) / seconds) * 100,
        }));
        const requests = loads.reduce((sum, l) => sum + l.requests, 0);
        const waits = active.reduce((sum, _, i) => sum + (after[i].waits - before[i].waits), 0);
        const waited = active.reduce((sum, _, i) => sum + (after[i].waitSeconds - before[i].waitSeconds), 0);
        const row = {
          instances: count,
          phase,
          pooler: POOLER,
          coherence: COHERENCE,
          seconds: +seconds.toFixed(1),
          requestsPerSecond: Math.round(requests / seconds),
          non2xx: loads.reduce((sum, l) => sum + l.non2xx, 0),
          readsPerSecondPerInstance: perInstance.map((p) => Math.round(p.readsPerSecond)),
          readsPerSecondTotal: Math.round(perInstance.reduce((sum, p) => sum + p.readsPerSecond, 0)),
          appliedPerSecondPerInstance: perInstance.map((p) => Math.round(p.appliedPerSecond)),
          instanceCpuPercent: perInstance.map((p) => Math.round(p.cpuPercent)),
          postgresCpuPercent: Math.round(((pg1 - pg0) / seconds) * 100),
          databaseTransactionsPerSecond: Math.round((db1.xacts - db0.xacts) / seconds),
          // The mean time a write's answer waited for every instance to apply it (acknowledged only).
          meanWriteWaitMs: waits > 0 ? +((waited / waits) * 1000).toFixed(2) : null,
          machineBusyPercent: Math.round(((cpu1.busy - cpu0.busy) / (cpu1.total - cpu0.total)) * 100),
          loadAverage1m: +load1.toFixed(2),
          otherProcesses: otherLoad(ours),
        };
        results.push(row);
        console.log(JSON.stringify(row));
      }
    }
  } finally {
    await Promise.all(instances.map((instance) => instance.stop()));
    await stats.end();
    if (bouncer) await bouncer.stop();
    await database.stop();
  }
  const name = `scaling${POOLER === 'pgbouncer' ? '-pgbouncer' : ''}${COHERENCE === 'acknowledged' ? '-acknowledged' : ''}`;
  writeFileSync(join(root, 'bench/results', `${name}.json`), JSON.stringify(results, null, 2) + '\n');
  const lines = [
    `Measured ${new Date().toISOString()} on ${cpus().length} cores (${cpus()[0].model.trim()}), Node.js ${process.version}, ` +
      `${SECONDS} s a phase, reads ${READ_CONNECTIONS} connections and writes ${WRITE_CONNECTIONS} in all, ` +
      `pooler: ${POOLER}${bouncer ? ` (default_pool_size ${SERVER_POOL})` : ''}, CACHE_COHERENCE=${COHERENCE}. ` +
      'Everything on one machine, shared.',
    '',
    '| instances | phase | req/s (all) | non-2xx | invalidation reads/s per instance | reads/s in all | applied/s per instance | instance CPU % | PostgreSQL CPU % | db xact/s | mean write wait ms | machine busy % | load 1m | others (ps, lifetime %cpu) |',
    '| --: | --- | --: | --: | --- | --: | --- | --- | --: | --: | --: | --: | --: | --- |',
    ...results.map(
      (r) =>
        `| ${r.instances} | ${r.phase} | ${r.requestsPerSecond} | ${r.non2xx} | ${r.readsPerSecondPerInstance.join(' / ')} | ${r.readsPerSecondTotal} | ${r.appliedPerSecondPerInstance.join(' / ')} | ${r.instanceCpuPercent.join(' / ')} | ${r.postgresCpuPercent} | ${r.databaseTransactionsPerSecond} | ${r.meanWriteWaitMs ?? '–'} | ${r.machineBusyPercent} | ${r.loadAverage1m} | ${r.otherProcesses} |`,
    ),
    '',
  ];
  const mdFile = join(root, 'bench/results', `${name}.md`);
  const markdown = await prettier.format(lines.join('\n'), {
    ...(await prettier.resolveConfig(mdFile)),
    parser: 'markdown',
  });
  writeFileSync(mdFile, markdown);
  say(`wrote bench/results/${name}.{json,md}`);
}

await main();
