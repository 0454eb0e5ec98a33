import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../../src/common/net/free-port.js';
import { TEST_JWT_SECRET, TEST_ORIGIN } from './test-app.js';

const MAIN = fileURLToPath(new URL('../../dist/src/main.js', import.meta.url));
const WORKER = fileURLToPath(new URL('../../dist/src/worker.js', import.meta.url));

export interface BuiltProcess {
  child: ChildProcess;
  output: string[];
  /** Resolves with the exit code (null when killed by a signal). */
  exited: Promise<number | null>;
  kill(signal?: NodeJS.Signals): Promise<number | null>;
}

export interface ServiceProcess extends BuiltProcess {
  url: string;
}

/**
 * Runs a built entry point with the test settings, collecting its output. Without DATABASE_URL in `env` it starts
 * the embedded PostgreSQL in its DATA_DIR.
 */
function spawnBuilt(entry: string, env: Record<string, string>): BuiltProcess {
  const { DATABASE_URL: _inherited, ...inherited } = process.env;
  const child = spawn(process.execPath, [entry], {
    env: {
      ...inherited,
      NODE_ENV: 'test',
      JWT_SECRET: TEST_JWT_SECRET,
      DATA_DIR: mkdtempSync(join(tmpdir(), 'tollgate-proc-')),
      ...TEST_ORIGIN,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  child.stdout!.on('data', (chunk: Buffer) => output.push(chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => output.push(chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    output,
    exited,
    kill: (signal: NodeJS.Signals = 'SIGTERM') => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

/** Polls `ready` every 100 ms; throws with the process's output once it exits or `withinMs` has passed. */
async function waitUntilReady(
  built: BuiltProcess,
  what: string,
  withinMs: number,
  ready: () => Promise<boolean>,
): Promise<void> {
  for (let attempt = 0; !(await ready()); attempt++) {
    if (built.child.exitCode !== null || attempt * 100 > withinMs) {
      throw new Error(`${what} did not start:\n${built.output.join('')}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * The built service (`dist/src/main.js`, made by `npm test`'s pretest build) as a real process, for the tests that
 * must kill it. It listens on a free loopback port against the given database.
 */
export async function startServiceProcess(
  databaseUrl: string,
  env: Record<string, string> = {},
): Promise<ServiceProcess> {
  return startService({ DATABASE_URL: databaseUrl, ...env });
}

/** The built service with its own embedded PostgreSQL in `dataDir` (no DATABASE_URL), as `npm start` runs it. */
export function startEmbeddedServiceProcess(
  dataDir: string,
  env: Record<string, string> = {},
): Promise<ServiceProcess> {
  return startService({ DATA_DIR: dataDir, ...env });
}

/** The built service, not waited for: for a start that is expected to fail. */
export async function spawnServiceProcess(env: Record<string, string>): Promise<ServiceProcess> {
  const port = await freePort();
  const service = spawnBuilt(MAIN, { PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', ...env });
  return { ...service, url: `http://127.0.0.1:${port}` };
}

async function startService(env: Record<string, string>): Promise<ServiceProcess> {
  const service = await spawnServiceProcess(env);
  const { url } = service;
  // Up to two minutes: a busy machine (CI beside other jobs) can take that long to boot Nest and migrate.
  await waitUntilReady(service, 'service', 120_000, async () => {
    try {
      return (await fetch(`${url}/health`)).ok;
    } catch {
      return false; // not listening yet
    }
  });
  return { ...service, url };
}

/**
 * The built delivery worker (`dist/src/worker.js`, what `npm run start:worker` runs) as a real process against the
 * given database. Resolves once it says it is running; `kill` stops it and resolves with its exit code.
 */
export async function startWorkerProcess(
  databaseUrl: string,
  env: Record<string, string> = {},
): Promise<BuiltProcess> {
  const worker = spawnBuilt(WORKER, { DATABASE_URL: databaseUrl, LOG_LEVEL: 'info', ...env });
  await waitUntilReady(worker, 'worker', 30_000, () =>
    Promise.resolve(worker.output.join('').includes('worker is running')),
  );
  return worker;
}
