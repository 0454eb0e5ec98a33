// How every bench starts the service: as `npm start` runs it (node with the flags of `npm run start:prod`, after
// the build), with the service's default settings. A run sets only what it must (a database, a free loopback port,
// a secret, plain-http cookies for its cookie requests) and what a row measures, through `env`. The service's own
// output (a log line per request by default) goes to a file, as a deployment's would, not through the bench's
// output or a pipe the bench would have to drain.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, openSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../dist/src/common/net/free-port.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The node flags of `npm run start:prod` (what `npm start` runs after building), read from a checkout. */
export function nodeFlags(checkout = ROOT) {
  return JSON.parse(readFileSync(join(checkout, 'package.json'), 'utf8'))
    .scripts['start:prod'].split(/\s+/)
    .filter((word) => word.startsWith('--'));
}

/** User + system CPU milliseconds a process has used so far (clock ticks of 10 ms, as Linux reports them). */
export function cpuMs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

async function waitForHealth(url, child, logFile) {
  for (let attempt = 0; ; attempt++) {
    try {
      if ((await fetch(`${url}/health`)).ok) return;
    } catch {
      // not listening yet
    }
    // Two minutes: a busy machine can take that long to boot Nest and migrate.
    if (child.exitCode !== null || attempt > 1200) {
      throw new Error(`the service did not start: see ${logFile}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Starts the built service of `checkout` (this one by default) against `databaseUrl` and resolves once `/health`
 * answers: `{ url, child, logFile, stop() }`.
 */
export async function startService({ databaseUrl, env = {}, checkout = ROOT, jwtSecret }) {
  const port = await freePort();
  const logFile = join(mkdtempSync(join(tmpdir(), 'tollgate-bench-log-')), 'service.log');
  const log = openSync(logFile, 'a');
  const child = spawn(process.execPath, [...nodeFlags(checkout), join(checkout, 'dist/src/main.js')], {
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      HOST: '127.0.0.1',
      JWT_SECRET: jwtSecret ?? randomBytes(48).toString('base64url'),
      // The bench's cookie requests are plain http to 127.0.0.1.
      COOKIE_SECURE: 'false',
      ...env,
    },
    stdio: ['ignore', log, log],
  });
  const url = `http://127.0.0.1:${port}`;
  await waitForHealth(url, child, logFile);
  return {
    url,
    child,
    logFile,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve(child.exitCode);
        child.once('exit', resolve);
        child.kill('SIGTERM');
      }),
  };
}
