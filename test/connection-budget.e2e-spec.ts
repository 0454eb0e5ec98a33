import pg from 'pg';
import { freePort } from '../src/common/net/free-port.js';
import { http } from './utils/http.js';
import { sleep, until } from './utils/receiver.js';
import { spawnServiceProcess, type ServiceProcess } from './utils/service-process.js';
import { startTcpProxy } from './utils/tcp-proxy.js';
import { workerDatabaseUrl } from './utils/test-database.js';

/**
 * A role whose CONNECTION LIMIT stands for a server with every slot taken: PostgreSQL refuses it with the same
 * SQLSTATE (53300 too_many_connections) as a full `max_connections`, without starving the other tests' server.
 */
describe('a connection budget exceeded', () => {
  const role = `tollgate_budget_w${process.env.JEST_WORKER_ID ?? '1'}`;
  const password = 'budget-password';
  let admin: pg.Client;
  let url: string;
  let service: ServiceProcess | undefined;
  let metricsUrl: string;

  const asRole = (): pg.Client => new pg.Client({ connectionString: url });

  beforeAll(async () => {
    admin = new pg.Client({ connectionString: process.env.TEST_ADMIN_DATABASE_URL });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${role} WITH (FORCE)`);
    await admin.query(`DROP ROLE IF EXISTS ${role}`);
    await admin.query(`CREATE ROLE ${role} LOGIN PASSWORD '${password}' CONNECTION LIMIT 2`);
    await admin.query(`CREATE DATABASE ${role} OWNER ${role}`);
    const target = new URL(process.env.TEST_ADMIN_DATABASE_URL!);
    target.username = role;
    target.password = password;
    target.pathname = `/${role}`;
    url = target.toString();
  });
  afterAll(async () => {
    await service?.kill();
    await admin.query(`DROP DATABASE IF EXISTS ${role} WITH (FORCE)`);
    await admin.query(`DROP ROLE IF EXISTS ${role}`);
    await admin.end();
  });

  it('retries at start while no slot is free, saying so, and starts once one is', async () => {
    // A process takes DATABASE_POOL_SIZE connections and one session of its own (presence lock, LISTEN): with
    // both of the role's two slots held, neither can be had.
    const holders = [asRole(), asRole()];
    for (const holder of holders) await holder.connect();
    const metricsPort = await freePort();
    metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
    service = await spawnServiceProcess({
      DATABASE_URL: url,
      DATABASE_POOL_SIZE: '1',
      LOG_LEVEL: 'info',
      METRICS_PORT: String(metricsPort),
    });
    const output = (): string => service!.output.join('');
    await until(
      () => /no connection slot left/.test(output()),
      30_000,
      'a retry line naming the slot shortage',
    );
    await sleep(1000);
    expect(service.child.exitCode).toBeNull();
    expect(output()).toContain('too_many_connections');
    expect(output()).not.toContain('cannot be reached');
    for (const holder of holders) await holder.end();
    await until(
      async () => {
        try {
          return (await fetch(`${service!.url}/health/ready`)).ok;
        } catch {
          return false;
        }
      },
      60_000,
      'the service ready once the slot is free',
    );
  });

  it('reports slot exhaustion in readiness and its own log line, not as an outage', async () => {
    // No slot left for the role, and the instance's open connection cut: it must connect anew, and is refused.
    await admin.query(`ALTER ROLE ${role} CONNECTION LIMIT 0`);
    await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = $1', [role]);
    try {
      await sleep(1100); // the health check reuses its answer for a second
      const ready = await http(service!.url).get('/health/ready');
      expect(ready.status).toBe(503);
      expect(ready.body.checks.database).toMatchObject({ status: 'down', message: 'too_many_connections' });
      await until(
        () => /no connection slot left for this instance/.test(service!.output.join('')),
        5000,
        'the slot shortage logged',
      );
      // The cut itself is an outage (the server ended the connection); the refusals after it are not.
      const outages = service!.output
        .join('')
        .split('\n')
        .filter((line) => line.includes('cannot be reached'));
      for (const line of outages) expect(line).toContain('administrator command');
      const metrics = await (await fetch(metricsUrl)).text();
      const refused = /^tollgate_db_connection_failures_total\{reason="too_many_connections"\} (\d+)$/m.exec(
        metrics,
      );
      expect(Number(refused?.[1])).toBeGreaterThan(0);
    } finally {
      await admin.query(`ALTER ROLE ${role} CONNECTION LIMIT 1`);
    }
  });
});

describe('a database not up yet at start', () => {
  it('is retried with backoff, logged as unreachable, until it answers; the process does not exit', async () => {
    const direct = new URL(await workerDatabaseUrl());
    const proxy = await startTcpProxy(direct.hostname, Number(direct.port));
    await proxy.cut();
    const service = await spawnServiceProcess({
      DATABASE_URL: proxy.url(direct.toString()),
      LOG_LEVEL: 'info',
    });
    try {
      const retries = (): string[] =>
        service.output
          .join('')
          .split('\n')
          .filter((line) => line.includes('the database cannot be reached yet'));
      await until(() => retries().length >= 2, 30_000, 'two retries of the unreachable database');
      expect(retries()[0]).toMatch(/ECONNREFUSED.*retrying in \d+\.\d s, giving up in \d+ s/);
      expect(service.child.exitCode).toBeNull();
      await proxy.restore();
      await until(
        async () => {
          try {
            return (await fetch(`${service.url}/health/ready`)).ok;
          } catch {
            return false;
          }
        },
        60_000,
        'the service ready once the database answers',
      );
    } finally {
      await service.kill();
      await proxy.close();
    }
  });

  it('gives up after DATABASE_START_TIMEOUT_MS with exit 1', async () => {
    const proxy = await startTcpProxy('127.0.0.1', 9);
    await proxy.cut();
    const service = await spawnServiceProcess({
      DATABASE_URL: proxy.url('postgres://nobody@127.0.0.1:9/none'),
      DATABASE_START_TIMEOUT_MS: '1500',
    });
    try {
      expect(await service.exited).toBe(1);
      expect(service.output.join('')).toContain('applying the migrations failed');
    } finally {
      await proxy.close();
    }
  });
});
