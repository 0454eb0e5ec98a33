import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../../src/common/net/free-port.js';
import { TEST_JWT_SECRET } from './test-app.js';

const MAIN = fileURLToPath(new URL('../../dist/src/main.js', import.meta.url));
const WORKER = fileURLToPath(new URL('../../dist/src/worker.js', import.meta.url));

export interface ServiceProcess {
  url: string;
  child: ChildProcess;
  output: string[];
  /** Resolves with the exit code (null when killed by a signal). */
  exited: Promise<number | null>;
  kill(signal?: NodeJS.Signals): Promise<number | null>;
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
  const child = spawn(process.execPath, [MAIN], {
    env: {
      ...process.env,
      NODE_ENV: 'test',
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      HOST: '127.0.0.1',
      JWT_SECRET: TEST_JWT_SECRET,
      DATA_DIR: mkdtempSync(join(tmpdir(), 'tollgate-proc-')),
      LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  child.stdout!.on('data', (chunk: Buffer) => output.push(chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => output.push(chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = `http://127.0.0.1:${port}`;
  for (let attempt = 0; ; attempt++) {
    try {
      if ((await fetch(`${url}/health`)).ok) break;
    } catch {
      // not listening yet
    }
    // Up to two minutes: a busy machine (CI beside other jobs) can take that long to boot Nest and migrate.
    if (child.exitCode !== null || attempt > 1200)
      throw new Error(`service did not start:\n${output.join('')}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    url,
    child,
    output,
    exited,
    kill: (signal: NodeJS.Signals = 'SIGTERM') => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

/**
 * The built delivery worker (`dist/src/worker.js`, what `npm run start:worker` runs) as a real process against the
 * given database. Resolves once it says it is running; `kill` stops it and resolves with its exit code.
 */
export async function startWorkerProcess(
  databaseUrl: string,
  env: Record<string, string> = {},
): Promise<Omit<ServiceProcess, 'url'>> {
  const child = spawn(process.execPath, [WORKER], {
    env: {
      ...process.env,
      NODE_ENV: 'test',
      DATABASE_URL: databaseUrl,
      JWT_SECRET: TEST_JWT_SECRET,
      DATA_DIR: mkdtempSync(join(tmpdir(), 'tollgate-worker-')),
      LOG_LEVEL: 'info',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  child.stdout!.on('data', (chunk: Buffer) => output.push(chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => output.push(chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  for (let attempt = 0; !output.join('').includes('worker is running'); attempt++) {
    if (child.exitCode !== null || attempt > 300)
      throw new Error(`worker did not start:\n${output.join('')}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
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
