// Debian's PgBouncer in transaction mode, for the PgBouncer tests (test/pgbouncer.e2e-spec.ts) and the scaling
// bench (bench/scaling.mjs). Plain JavaScript so that both, TypeScript under jest and the bench's .mjs, import it.
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

export const PGBOUNCER = '/usr/sbin/pgbouncer';

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/**
 * Starts PgBouncer in transaction mode in front of `databaseUrl` on a free loopback port, and resolves once it
 * answers a query. It refuses to run as root: then it drops to `postgres`, which must be able to read its files.
 */
export async function startPgBouncer({ databaseUrl, serverPoolSize, maxClients, startTimeoutMs = 10_000 }) {
  const server = new URL(databaseUrl);
  const dir = mkdtempSync(join(tmpdir(), 'tollgate-pgbouncer-'));
  chmodSync(dir, 0o777);
  const port = await freePort();
  const user = decodeURIComponent(server.username);
  const password = server.password ? ` password=${decodeURIComponent(server.password)}` : '';
  const logfile = join(dir, 'pgbouncer.log');
  writeFileSync(join(dir, 'userlist.txt'), `"${user}" ""\n`);
  writeFileSync(
    join(dir, 'pgbouncer.ini'),
    [
      '[databases]',
      `* = host=${server.hostname} port=${server.port} user=${user}${password}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${join(dir, 'userlist.txt')}`,
      'pool_mode = transaction',
      `default_pool_size = ${serverPoolSize}`,
      `max_client_conn = ${maxClients}`,
      `logfile = ${logfile}`,
      `pidfile = ${join(dir, 'pgbouncer.pid')}`,
      '',
    ].join('\n'),
  );
  for (const file of ['userlist.txt', 'pgbouncer.ini']) chmodSync(join(dir, file), 0o644);
  const args = [...(userInfo().uid === 0 ? ['-u', 'postgres'] : []), join(dir, 'pgbouncer.ini')];
  const child = spawn(PGBOUNCER, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const output = [];
  child.stdout.on('data', (chunk) => output.push(chunk.toString()));
  child.stderr.on('data', (chunk) => output.push(chunk.toString()));
  const exited = new Promise((resolve) => child.once('exit', () => resolve()));
  const log = () => output.join('') + (existsSync(logfile) ? readFileSync(logfile, 'utf8') : '');
  const url = new URL(databaseUrl);
  url.port = String(port);
  url.password = '';
  const deadline = Date.now() + startTimeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`pgbouncer exited:\n${log()}`);
    const probe = new pg.Client({ connectionString: url.toString() });
    try {
      await probe.connect();
      await probe.query('SELECT 1');
      break;
    } catch (error) {
      if (Date.now() > deadline)
        throw new Error(`pgbouncer did not answer: ${error.message}\n${log()}`, { cause: error });
      await new Promise((resolve) => setTimeout(resolve, 100));
    } finally {
      await probe.end().catch(() => undefined);
    }
  }
  return {
    url: url.toString(),
    pid: child.pid,
    log,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGINT');
      await exited;
    },
  };
}
