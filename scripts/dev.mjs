/**
 * `npm run dev`: the service in Nest's watch mode (recompiled and restarted on every change of src/) beside a Vite
 * watch build of the dashboard into .dev/web (rebuilt on every change of web/; the service serves each new build
 * as it lands, so reloading the page shows it). Nest's builds never touch .dev/, so /dashboard always has a build.
 *
 * Development defaults, each applied only where the variable is set neither in the environment nor in .env, and
 * never with NODE_ENV=production: WEBHOOK_ALLOW_HTTP=true and WEBHOOK_ALLOW_PRIVATE=true, so a webhook can point at
 * a receiver on this machine (http://localhost:4000/hook).
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseEnv } from 'node:util';

const root = fileURLToPath(new URL('..', import.meta.url));
const envFile = join(root, '.env');
const configured = {
  ...(existsSync(envFile) ? parseEnv(readFileSync(envFile, 'utf8')) : {}),
  ...process.env,
};

const DEVELOPMENT_DEFAULTS = { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE: 'true' };

const env = { ...process.env };
if (configured.NODE_ENV === 'production') {
  console.warn('dev: NODE_ENV=production, so the development defaults (WEBHOOK_ALLOW_*) are not applied');
} else {
  for (const [name, value] of Object.entries(DEVELOPMENT_DEFAULTS)) {
    if (configured[name] === undefined) env[name] = value;
  }
}
const dashboardDir = resolve(root, configured.DASHBOARD_DIR ?? '.dev/web');
env.DASHBOARD_DIR = dashboardDir;

const children = [
  spawn(
    process.execPath,
    [
      join(root, 'node_modules/vite/bin/vite.js'),
      'build',
      '--watch',
      '--config',
      'web/vite.config.ts',
      '--outDir',
      dashboardDir,
      '--emptyOutDir',
      '--logLevel',
      'warn',
    ],
    { cwd: root, env, stdio: 'inherit' },
  ),
  spawn(process.execPath, [join(root, 'node_modules/@nestjs/cli/bin/nest.js'), 'start', '--watch'], {
    cwd: root,
    env,
    stdio: 'inherit',
  }),
];

let stopping = false;
function stop(signal) {
  if (stopping) return;
  stopping = true;
  for (const child of children) if (child.exitCode === null) child.kill(signal);
}
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => stop(signal));
// Either half ending ends the loop: a dashboard without its server (or the reverse) is not a working dev loop.
for (const child of children) {
  child.once('exit', (code) => {
    stop('SIGTERM');
    process.exitCode ||= code ?? 0;
  });
}
