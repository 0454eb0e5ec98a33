import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../../src/common/net/free-port.js';
import { TEST_JWT_SECRET } from './test-app.js';

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

/** Runs a built entry point against the given database with the test settings, collecting its output. */
function spawnBuilt(entry: string, env: Record<string, string>): BuiltProcess {
  const child = spawn(process.execPath, [entry], {
    env: {
      ...process.env,
      NODE_ENV: 'test',
      JWT_SECRET: TEST_JWT_SECRET,
      DATA_DIR: mkdtempSync(join(tmpdir(), 'tollgate-proc-')),
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
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const service = spawnBuilt(MAIN, {
    DATABASE_URL: databaseUrl,
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    ...env,
  });
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
