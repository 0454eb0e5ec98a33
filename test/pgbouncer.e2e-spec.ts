import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, chmodSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from '../src/common/net/free-port.js';
import { poolConfig } from '../src/database/data-source.js';
import { DatabaseAvailability } from '../src/database/database-availability.js';
import { Database } from '../src/database/database.service.js';
import { sql } from '../src/database/sql.js';
import { http, renewalsAcrossInstances } from './utils/http.js';
import { Receiver, until } from './utils/receiver.js';
import { startServiceProcess, type ServiceProcess } from './utils/service-process.js';
import { truncateAll, workerDatabaseUrl } from './utils/test-database.js';
import { login } from './utils/wallet.js';

const PGBOUNCER = '/usr/sbin/pgbouncer';
const available = existsSync(PGBOUNCER);
if (!available && process.env.CI) {
  throw new Error(`${PGBOUNCER} is missing: CI installs Debian's pgbouncer (.ci/run)`);
}
if (!available) {
  console.warn(`skipping the PgBouncer tests: ${PGBOUNCER} is not installed (apt-get install pgbouncer)`);
}

interface Bouncer {
  /** The test database's URL through the pooler. */
  url: string;
  stop(): Promise<void>;
}

/**
 * Debian's PgBouncer in transaction mode in front of the test's PostgreSQL, on a free loopback port, with a server
 * pool smaller than the instances' pools together (as in production, where that is the point of it). It refuses to
 * run as root: then it drops to `postgres`, which must be able to read its files.
 */
async function startBouncer(databaseUrl: string): Promise<Bouncer> {
  const server = new URL(databaseUrl);
  const dir = mkdtempSync(join(tmpdir(), 'tollgate-pgbouncer-'));
  chmodSync(dir, 0o777);
  const port = await freePort();
  const user = decodeURIComponent(server.username);
  writeFileSync(join(dir, 'userlist.txt'), `"${user}" ""\n`);
  const logfile = join(dir, 'pgbouncer.log');
  writeFileSync(
    join(dir, 'pgbouncer.ini'),
    [
      '[databases]',
      `* = host=${server.hostname} port=${server.port} user=${user}${server.password ? ` password=${decodeURIComponent(server.password)}` : ''}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${join(dir, 'userlist.txt')}`,
      'pool_mode = transaction',
      'default_pool_size = 8',
      'max_client_conn = 200',
      `logfile = ${logfile}`,
      `pidfile = ${join(dir, 'pgbouncer.pid')}`,
      '',
    ].join('\n'),
  );
  for (const file of ['userlist.txt', 'pgbouncer.ini']) chmodSync(join(dir, file), 0o644);
  const args = [...(userInfo().uid === 0 ? ['-u', 'postgres'] : []), join(dir, 'pgbouncer.ini')];
  const child: ChildProcess = spawn(PGBOUNCER, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const output: string[] = [];
  child.stdout!.on('data', (chunk: Buffer) => output.push(chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => output.push(chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const log = (): string => output.join('') + (existsSync(logfile) ? readFileSync(logfile, 'utf8') : '');
  const url = new URL(databaseUrl);
  url.port = String(port);
  url.password = '';
  await until(
    async () => {
      if (child.exitCode !== null) throw new Error(`pgbouncer exited:\n${log()}`);
      const probe = new pg.Client({ connectionString: url.toString() });
      try {
        await probe.connect();
        await probe.query('SELECT 1');
        return true;
      } catch {
        return false;
      } finally {
        await probe.end().catch(() => undefined);
      }
    },
    10_000,
    'pgbouncer listening',
  );
  return {
    url: url.toString(),
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGINT');
      await exited;
    },
  };
}

(available ? describe : describe.skip)('behind PgBouncer in transaction mode', () => {
  let direct: string;
  let bouncer: Bouncer;

  beforeAll(async () => {
    direct = await workerDatabaseUrl();
    await truncateAll(direct);
    bouncer = await startBouncer(direct);
  });
  afterAll(async () => {
    await bouncer?.stop();
  });

  it('refuses the statement timeout as a startup parameter: DATABASE_POOLER=transaction does not send it', async () => {
    const asDirect = new pg.Pool(poolConfig({ url: bouncer.url, pooler: 'none' }));
    await expect(asDirect.query('SELECT 1')).rejects.toThrow(
      /unsupported startup parameter: statement_timeout/,
    );
    await asDirect.end();
    const pooled = new pg.Pool(poolConfig({ url: bouncer.url, pooler: 'transaction' }));
    await expect(pooled.query('SELECT 1 AS one')).resolves.toMatchObject({ rows: [{ one: 1 }] });
    await pooled.end();
  });

  it("still cancels a transaction's statement that outlasts the timeout, and leaves no setting on the server connection", async () => {
    const pool = new pg.Pool(
      poolConfig({ url: bouncer.url, pooler: 'transaction', statementTimeoutMs: 300, poolSize: 1 }),
    );
    const db = new Database(pool, new DatabaseAvailability(), {
      pooler: 'transaction',
      statementTimeoutMs: 300,
    });
    try {
      const started = Date.now();
      await expect(db.transaction((tx) => tx.run(sql`SELECT pg_sleep(5)`))).rejects.toMatchObject({
        code: '57014',
      });
      expect(Date.now() - started).toBeLessThan(3000);
      // SET LOCAL ended with the transaction: whichever server connection ran it is back to the server's default.
      const { rows } = await db.run<{ statement_timeout: string }>(sql`SHOW statement_timeout`);
      expect(rows[0]!.statement_timeout).toBe('0');
      // Named statements would collide on the shared server connections; behind the pooler they run unnamed.
      for (let i = 0; i < 3; i++) {
        await db.transaction((tx) => tx.runPrepared('tollgate_probe', sql`SELECT ${i}::int AS i`));
      }
    } finally {
      await pool.end();
    }
  });

  describe('two instances through it', () => {
    let a: ServiceProcess;
    let b: ServiceProcess;
    let receiver: Receiver;

    beforeAll(async () => {
      const env = {
        DATABASE_POOLER: 'transaction',
        WEBHOOK_ALLOW_HTTP: 'true',
        WEBHOOK_ALLOW_PRIVATE: 'true',
        LOG_LEVEL: 'info',
      };
      receiver = await Receiver.start();
      // Started together: their migrations meet at the transaction lock, through the pooler.
      [a, b] = await Promise.all([
        startServiceProcess(bouncer.url, env),
        startServiceProcess(bouncer.url, env),
      ]);
    });
    afterAll(async () => {
      await Promise.all([a?.kill(), b?.kill()]);
      await receiver?.close();
    });

    it('signs in, renews, cancels, and each instance sees what the other committed', async () => {
      const session = await login(a.url);
      const status = `/subscriptions/status?address=${session.address}`;
      expect((await http(b.url).get(status, { token: session.token })).body.status).toBe('none');
      expect(
        (await http(a.url).post('/subscriptions/renew', { token: session.token, body: {} })).status,
      ).toBe(200);
      expect((await http(b.url).get(status, { token: session.token })).body.status).toBe('active');
      expect(
        (await http(b.url).post('/subscriptions/cancel', { token: session.token, body: {} })).status,
      ).toBe(200);
      expect((await http(a.url).get(status, { token: session.token })).body.cancelAtPeriodEnd).toBe(true);
      // A second sign-in of the same wallet, on the other instance.
      expect((await login(b.url, session.account)).token).toEqual(expect.any(String));
      expect((await http(b.url).post('/auth/logout', { token: session.token })).status).toBeLessThan(300);
      expect((await http(a.url).get('/auth/session', { token: session.token })).status).toBe(401);
    });

    it('creates an API key on one instance, uses it on the other, and a revocation holds on both', async () => {
      const owner = await login(a.url);
      const created = await http(a.url).post('/api-keys', {
        token: owner.token,
        body: { label: 'pooled', scopes: ['READ_ONLY'] },
      });
      expect(created.status).toBe(200);
      expect((await http(b.url).get('/auth/session', { token: created.body.key })).status).toBe(200);
      expect((await http(a.url).get('/auth/session', { token: created.body.key })).status).toBe(200);
      const revoked = await http(a.url).post('/api-keys/revoke', {
        token: owner.token,
        body: { id: created.body.id },
      });
      expect(revoked.status).toBe(200);
      const onB = await http(b.url).get('/auth/session', { token: created.body.key });
      expect(onB.status).toBe(401);
      expect(onB.body.details.code).toBe('api_key_revoked');
    });

    it('delivers webhooks and records their completion', async () => {
      const renewals = 4;
      await renewalsAcrossInstances([a, b], receiver.url, renewals, login);
      await receiver.waitFor(renewals);
      const client = new pg.Client({ connectionString: direct });
      await client.connect();
      try {
        await until(
          async () => {
            const { rows } = await client.query<{ status: string }>('SELECT status FROM webhook_deliveries');
            return rows.length === renewals && rows.every((row) => row.status === 'succeeded');
          },
          10_000,
          'every delivery recorded as succeeded',
        );
      } finally {
        await client.end();
      }
      expect(new Set(receiver.received.map((request) => request.headers['webhook-id'])).size).toBe(renewals);
    });

    it('logs no statement the pooler broke, and warns that single statements lack a server-side timeout', () => {
      const logs = a.output.join('') + b.output.join('');
      // The test server has no default statement_timeout, as a fresh PostgreSQL.
      expect(a.output.join('')).toContain('statements outside a transaction run without a statement timeout');
      expect(logs).not.toMatch(/prepared statement|unsupported startup parameter|invalidations failed/);
    });
  });
});
