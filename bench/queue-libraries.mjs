// The delivery queue (the pending rows of `webhook_deliveries`) beside the libraries that could replace it, for
// "Compared with libraries" in docs/architecture.md: `npm run build && node bench/queue-libraries.mjs`.
// Each library once per round, rounds alternating, a fresh database for each measurement, loopback only:
//   enqueue  BENCH_TRANSACTIONS producer transactions (2000), BENCH_PRODUCERS at once (16), each an event row and
//            its job, in one transaction where the library allows it (BullMQ cannot: `add` follows the commit);
//   drain    a backlog of BENCH_BACKLOG jobs (3000), BENCH_CONCURRENCY at a time (64), by a handler that does
//            nothing: first job handed over to last completion recorded, and this process's CPU then, per job.
// Also BENCH_ROUNDS (2, after a warm-up round not recorded), BENCH_TIMEOUT (s per measurement, 120),
// BENCH_LIBRARIES (table,graphile-worker,pg-boss,bullmq), BENCH_GRAPHILE_POOL (graphile-worker's maxPoolSize; its
// default, 10). PostgreSQL: embedded, or DATABASE_URL (a role that may create databases). BullMQ: REDIS_URL
// (redis://127.0.0.1:6379); skipped, with the reason, when Redis does not answer.
// The three libraries are not the project's dependencies (every `npm ci` would install them for this bench alone):
// the first run installs the versions below into BENCH_LIBRARY_DIR (a folder under the system's temporary directory
// by default) with `npm install --prefix`, from the registry, and later runs load them from there.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Redis } from 'ioredis';
import pg from 'pg';
import { pino } from 'pino';
import { Database } from '../dist/src/database/database.service.js';
import { DatabaseAvailability } from '../dist/src/database/database-availability.js';
import { startEmbeddedPostgres } from '../dist/src/database/embedded-postgres.js';
import { runMigrations } from '../dist/src/database/migrate.js';
import { sql } from '../dist/src/database/sql.js';
import { EventOutbox } from '../dist/src/events/event-outbox.service.js';
import { PostgresDeliveryQueue } from '../dist/src/webhooks/delivery/queue/postgres-delivery-queue.js';
import { WebhookFanOut } from '../dist/src/webhooks/delivery/webhook-fan-out.handler.js';

const LIBRARIES = { 'graphile-worker': '0.17.3', 'pg-boss': '10.4.2', bullmq: '6.7.0' };
const LIBRARY_DIR = process.env.BENCH_LIBRARY_DIR ?? join(tmpdir(), 'tollgate-bench-queue-libraries');
const libraryPath = (name) => join(LIBRARY_DIR, 'node_modules', name);
const installed = (name) =>
  existsSync(join(libraryPath(name), 'package.json')) &&
  JSON.parse(readFileSync(join(libraryPath(name), 'package.json'), 'utf8')).version === LIBRARIES[name];
const missing = Object.keys(LIBRARIES).filter((name) => !installed(name));
if (missing.length > 0) {
  console.error(
    `installing ${missing.map((name) => `${name}@${LIBRARIES[name]}`).join(', ')} into ${LIBRARY_DIR}`,
  );
  mkdirSync(LIBRARY_DIR, { recursive: true });
  execFileSync(
    'npm',
    [
      'install',
      '--prefix',
      LIBRARY_DIR,
      '--no-audit',
      '--no-fund',
      '--ignore-scripts',
      ...Object.entries(LIBRARIES).map((e) => e.join('@')),
    ],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
}
const requireLibrary = createRequire(join(LIBRARY_DIR, 'package.json'));
const load = (name) => import(pathToFileURL(requireLibrary.resolve(name)).href);
const { Queue, Worker } = await load('bullmq');
const { Logger, run, runMigrations: migrateGraphileWorker } = await load('graphile-worker');
const { default: PgBoss } = await load('pg-boss');

const TRANSACTIONS = Number(process.env.BENCH_TRANSACTIONS ?? 2000);
const PRODUCERS = Number(process.env.BENCH_PRODUCERS ?? 16);
const BACKLOG = Number(process.env.BENCH_BACKLOG ?? 3000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 64);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const TIMEOUT_MS = Number(process.env.BENCH_TIMEOUT ?? 120) * 1000;
const GRAPHILE_POOL = Number(process.env.BENCH_GRAPHILE_POOL ?? 0);
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const ADDRESS = '0x00000000000000000000000000000000000b3c4';
const QUEUE = 'bench-deliveries';
/** pg-boss has no concurrency setting: its workers × their batch size are the jobs in hand at once. */
const PG_BOSS_WORKERS = 8;
const BATCH = CONCURRENCY / PG_BOSS_WORKERS;

const version = (name) => LIBRARIES[name];
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const event = (n) => ({ type: 'api_key.created', address: ADDRESS, data: { keyId: `key-${n}` } });
const insertEvent = (n) =>
  sql`INSERT INTO events (type, address, data) VALUES ('api_key.created', ${ADDRESS}, ${event(n).data})
    RETURNING id`;
const success = {
  success: true,
  statusCode: 204,
  durationMs: 1,
  error: null,
  retryAfterSeconds: null,
  responseBody: null,
};

function assertLoopback(url) {
  const host = new URL(url).hostname;
  if (!/^(127\.|localhost$|\[::1\]$)/.test(host))
    throw new Error(`${url}: this bench talks to loopback only`);
}

function within(promise, what) {
  const timeout = new Promise((_, reject) => {
    setTimeout(() => reject(new Error(`${what}: over ${TIMEOUT_MS / 1000} s`)), TIMEOUT_MS).unref();
  });
  return Promise.race([promise, timeout]);
}

/**
 * Each library: `setup(ctx)` on a fresh database (`ctx.url`; `ctx.db`, the service's `Database` on the producers'
 * pool, whose transactions every producer uses), `produce(ctx, n)` one producer transaction,
 * `backlog(ctx, count)`, `consume(ctx, onJob)` resolving to a stop function, `pending(ctx)` jobs not completed yet,
 * `teardown(ctx)`.
 */
const libraries = {
  table: {
    label: 'this table (also writes the attempt log)',
    async setup(ctx) {
      // The worker's pool as the service's (DATABASE_POOL_SIZE, 10); the service's own outbox and fan-out, so the
      // deliveries' INSERT … SELECT is spliced into the event's statement.
      ctx.workerPool = new pg.Pool({ connectionString: ctx.url, max: 10 });
      ctx.queue = new PostgresDeliveryQueue(new Database(ctx.workerPool, new DatabaseAvailability()));
      ctx.outbox = new EventOutbox();
      new WebhookFanOut({ operatorAddresses: [] }, ctx.outbox, ctx.queue).onModuleInit();
      const { rows } = await ctx.workerPool.query(
        `INSERT INTO webhook_endpoints (owner_address, url, events, secret)
         VALUES ($1, 'http://127.0.0.1:9/hook', ARRAY['*'], 'whsec_bench') RETURNING id`,
        [ADDRESS],
      );
      ctx.endpointId = rows[0].id;
    },
    produce: (ctx, n) =>
      ctx.db.transaction((tx) => ctx.outbox.record(tx, { ...event(n), occurredAt: new Date() })),
    backlog: (ctx, count) =>
      ctx.workerPool.query(
        `WITH event AS (
           INSERT INTO events (type, address, data)
           SELECT 'api_key.created', $1, jsonb_build_object('n', g) FROM generate_series(1, $2) g RETURNING id
         )
         INSERT INTO webhook_deliveries (endpoint_id, event_id, event_type, payload, next_attempt_at)
         SELECT $3, id, 'api_key.created', '{}', now() FROM event`,
        [ADDRESS, count, ctx.endpointId],
      ),
    async consume(ctx, onJob) {
      ctx.queue.consume(async (delivery) => {
        onJob();
        await ctx.queue.complete({ delivery, attemptedAt: new Date(), outcome: success });
      });
      return () => ctx.queue.stop();
    },
    pending: async (ctx) => (await ctx.queue.depth()).depth,
    teardown: (ctx) => ctx.queue.stop().then(() => ctx.workerPool.end()),
  },

  'graphile-worker': {
    label: `graphile-worker ${version('graphile-worker')} (${GRAPHILE_POOL ? `pool ${GRAPHILE_POOL}` : 'defaults'}, concurrency ${CONCURRENCY})`,
    async setup(ctx) {
      // Its defaults but for the console line per job: warnings and errors only.
      ctx.logger = new Logger(() => (level, message) => {
        if (level === 'error' || level === 'warning') console.error(`graphile-worker: ${message}`);
      });
      await migrateGraphileWorker({ connectionString: ctx.url, logger: ctx.logger });
    },
    // add_job is SQL, so it joins the event's statement as the outbox's fan-out does: one round trip.
    produce: (ctx, n) =>
      ctx.db.transaction((tx) =>
        tx.run(sql`WITH event AS (${insertEvent(n)})
          SELECT graphile_worker.add_job('deliver', json_build_object('eventId', id)) FROM event`),
      ),
    backlog: (ctx, count) =>
      ctx.db.run(sql`SELECT graphile_worker.add_job('deliver', json_build_object('n', g))
        FROM generate_series(1, ${count}::int) g`),
    async consume(ctx, onJob) {
      const { url: connectionString, logger } = ctx;
      const deliver = async () => onJob();
      // Its default pool of 10, although it warns that one smaller than the concurrency may be slow: one of 64
      // (BENCH_GRAPHILE_POOL=64) drained more slowly here.
      const options = { connectionString, logger, concurrency: CONCURRENCY, noHandleSignals: true };
      if (GRAPHILE_POOL) options.maxPoolSize = GRAPHILE_POOL;
      const runner = await run({ ...options, taskList: { deliver } });
      return () => runner.stop();
    },
    pending: async (ctx) =>
      (await ctx.db.run(sql`SELECT count(*)::int AS n FROM graphile_worker.jobs`)).rows[0].n,
    teardown: async () => {},
  },

  'pg-boss': {
    label: `pg-boss ${version('pg-boss')} (${PG_BOSS_WORKERS} workers × batches of ${BATCH}, 0.5 s poll)`,
    async setup(ctx) {
      ctx.boss = new PgBoss({ connectionString: ctx.url });
      ctx.boss.on('error', (error) => console.error(`pg-boss: ${error.message}`));
      await ctx.boss.start();
      await ctx.boss.createQueue(QUEUE);
    },
    // send() through the producer's transaction: in it, but a round trip of its own.
    produce: (ctx, n) =>
      ctx.db.transaction(async (tx) => {
        const { rows } = await tx.run(insertEvent(n));
        const db = { executeSql: (text, values) => tx.run({ text, values }) };
        await ctx.boss.send(QUEUE, { eventId: rows[0].id }, { db });
      }),
    backlog: (ctx, count) =>
      ctx.boss.insert(Array.from({ length: count }, (_, n) => ({ name: QUEUE, data: { n } }))),
    async consume(ctx, onJob) {
      // Its shortest polling interval; a worker waits for it after each batch, whatever is waiting.
      const options = { batchSize: BATCH, pollingIntervalSeconds: 0.5 };
      for (let i = 0; i < PG_BOSS_WORKERS; i++) {
        await ctx.boss.work(QUEUE, options, async (jobs) => jobs.forEach(() => onJob()));
      }
      return () => ctx.boss.offWork(QUEUE);
    },
    pending: (ctx) => ctx.boss.getQueueSize(QUEUE, { before: 'completed' }),
    teardown: (ctx) => ctx.boss.stop({ graceful: false }),
  },

  bullmq: {
    label: `BullMQ ${version('bullmq')} on Redis (concurrency ${CONCURRENCY}; \`add\` after the commit)`,
    async setup(ctx) {
      // A key prefix of its own, emptied at teardown: nothing else in this Redis is touched.
      ctx.redis = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
      ctx.options = { connection: ctx.redis, prefix: `tollgate-bench-${process.pid}-${ctx.database}` };
      ctx.bull = new Queue(QUEUE, ctx.options);
    },
    // Redis cannot take part in PostgreSQL's transaction: the job is added once the event is committed.
    async produce(ctx, n) {
      const { rows } = await ctx.db.transaction((tx) => tx.run(insertEvent(n)));
      await ctx.bull.add('deliver', { eventId: rows[0].id });
    },
    backlog: (ctx, count) =>
      ctx.bull.addBulk(Array.from({ length: count }, (_, n) => ({ name: 'deliver', data: { n } }))),
    async consume(ctx, onJob) {
      const worker = new Worker(QUEUE, async () => onJob(), { ...ctx.options, concurrency: CONCURRENCY });
      worker.on('error', (error) => console.error(`bullmq: ${error.message}`));
      return () => worker.close();
    },
    pending: (ctx) => ctx.bull.getJobCountByTypes('wait', 'active', 'delayed', 'prioritized'),
    async teardown(ctx) {
      await ctx.bull.obliterate({ force: true });
      await ctx.bull.close();
      ctx.redis.disconnect();
    },
  },
};

async function expectPending(library, ctx, expected) {
  const pending = await library.pending(ctx);
  if (pending !== expected) throw new Error(`${pending} jobs pending, ${expected} expected`);
}

/** Producer transactions per second. */
async function enqueue(library, ctx) {
  let next = 0;
  const producer = async () => {
    while (next < TRANSACTIONS) await library.produce(ctx, next++);
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: PRODUCERS }, producer));
  const seconds = (performance.now() - started) / 1000;
  await expectPending(library, ctx, TRANSACTIONS);
  return Math.round(TRANSACTIONS / seconds);
}

/** Jobs per second, first job handed over to last completion recorded, and this process's CPU per job then. */
async function drain(library, ctx) {
  await library.backlog(ctx, BACKLOG);
  await expectPending(library, ctx, BACKLOG);
  let handed = 0;
  let started, cpu, everyJobHanded;
  const handedOver = new Promise((resolve) => (everyJobHanded = resolve));
  const stop = await library.consume(ctx, () => {
    if (handed++ === 0) [started, cpu] = [performance.now(), process.cpuUsage()];
    if (handed === BACKLOG) everyJobHanded();
  });
  await handedOver;
  // graphile-worker and pg-boss record the last completions after their handlers have returned.
  while ((await library.pending(ctx)) > 0) await sleep(5);
  const seconds = (performance.now() - started) / 1000;
  const { user, system } = process.cpuUsage(cpu);
  await stop();
  if (handed !== BACKLOG) throw new Error(`${handed} jobs handed over for ${BACKLOG}`);
  return {
    jobsPerSecond: Math.round(BACKLOG / seconds),
    cpuMs: +((user + system) / 1000 / BACKLOG).toFixed(3),
  };
}

/** One measurement of one library, on a database of its own copied from the migrated template. */
async function measure(admin, name, what, round) {
  const database = `queue_bench_${name.replace(/\W/g, '_')}_${what}_${round}`;
  await admin.query(`CREATE DATABASE ${database} TEMPLATE queue_bench_template`);
  const url = databaseUrl(database);
  const pool = new pg.Pool({ connectionString: url, max: PRODUCERS });
  const ctx = { url, database, db: new Database(pool, new DatabaseAvailability()) };
  const library = libraries[name];
  let ready = false;
  try {
    await within(library.setup(ctx), `${name} setup`);
    ready = true;
    return await within(what === 'enqueue' ? enqueue(library, ctx) : drain(library, ctx), `${name} ${what}`);
  } finally {
    if (ready) await within(library.teardown(ctx), `${name} teardown`).catch((e) => console.error(e.message));
    await pool.end();
    // A pool's end() resolves before its connections have closed; killing one would end the run (an 'error' event
    // on a pool that no longer listens), so wait for them.
    const open = `SELECT FROM pg_stat_activity WHERE datname = '${database}'`;
    for (let i = 0; i < 200 && (await admin.query(open)).rowCount > 0; i++) await sleep(25);
    await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  }
}

/** Why BullMQ's row is skipped, if it is. */
async function redisProblem() {
  const redis = new Redis(REDIS_URL, { lazyConnect: true, retryStrategy: () => null });
  let cause;
  redis.on('error', (error) => (cause = error));
  try {
    await within(redis.connect(), 'Redis');
  } catch (error) {
    return `Redis at ${REDIS_URL} does not answer (${(cause ?? error).message})`;
  } finally {
    redis.disconnect();
  }
}

const dataDir = process.env.DATABASE_URL ? null : mkdtempSync(join(tmpdir(), 'tollgate-queues-'));
const embedded = dataDir && (await startEmbeddedPostgres(dataDir, pino({ level: 'warn' })));
const adminUrl = process.env.DATABASE_URL ?? embedded.url;
const databaseUrl = (name) => adminUrl.replace(/\/[^/]*$/, `/${name}`);
const admin = new pg.Client({ connectionString: adminUrl });
const names = (process.env.BENCH_LIBRARIES ?? Object.keys(libraries).join(',')).split(',');
const results = Object.fromEntries(names.map((name) => [name, { enqueue: [], drain: [], cpuMsPerJob: [] }]));
try {
  assertLoopback(adminUrl);
  await admin.connect();
  if (names.includes('bullmq')) {
    assertLoopback(REDIS_URL);
    const problem = await redisProblem();
    if (problem) {
      console.log(JSON.stringify({ library: 'bullmq', skipped: problem }));
      names.splice(names.indexOf('bullmq'), 1);
    }
  }
  await admin.query('DROP DATABASE IF EXISTS queue_bench_template');
  await admin.query('CREATE DATABASE queue_bench_template');
  await runMigrations(databaseUrl('queue_bench_template'));
  const { server_version } = (await admin.query('SHOW server_version')).rows[0];
  console.error(`PostgreSQL ${server_version}, node ${process.version}`);
  // Round 0 warms up node's JIT and the new server (the first measurements ran up to half as fast); not recorded.
  for (let round = 0; round <= ROUNDS; round++) {
    for (const name of names) {
      const result = round > 0 ? results[name] : { enqueue: [], drain: [], cpuMsPerJob: [] };
      try {
        result.enqueue.push(await measure(admin, name, 'enqueue', round));
        const { jobsPerSecond, cpuMs } = await measure(admin, name, 'drain', round);
        result.drain.push(jobsPerSecond);
        result.cpuMsPerJob.push(cpuMs);
      } catch (error) {
        result.error = error.message;
      }
      console.error(`round ${round}, ${name}: ${JSON.stringify(result)}`);
    }
  }
} finally {
  await admin.query('DROP DATABASE IF EXISTS queue_bench_template').catch(() => {});
  await admin.end();
  await embedded?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
}

const rows = names.map((name) => ({ library: name, label: libraries[name].label, ...results[name] }));
for (const row of rows) console.log(JSON.stringify(row));
const range = (values) => `${Math.min(...values)}–${Math.max(...values)} ms`;
console.log(
  '\n|  | enqueue, transactions/s | drain, jobs/s | consumer CPU per job |\n| --- | --- | --- | --- |',
);
for (const row of rows) {
  const cells = row.error
    ? [`failed: ${row.error}`, '', '']
    : [row.enqueue.join(', '), row.drain.join(', '), range(row.cpuMsPerJob)];
  console.log(`| ${row.label} | ${cells.join(' | ')} |`);
}
// Should a library leave a connection or a timer behind, the run still ends.
setTimeout(() => process.exit(process.exitCode ?? 0), 10_000).unref();
