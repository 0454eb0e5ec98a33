import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../src/common/net/free-port.js';
import { http } from './utils/http.js';
import { TEST_JWT_SECRET } from './utils/test-app.js';
import { workerDatabaseUrl } from './utils/test-database.js';
import { login, newWallet } from './utils/wallet.js';

const DEV = fileURLToPath(new URL('../scripts/dev.mjs', import.meta.url));

/**
 * `npm run dev` as a developer runs it (its script, not `npm` around it): Nest's watch mode and the dashboard's
 * watch build, on another port than 3000, with only the variables a developer would set.
 */
describe('npm run dev', () => {
  let dev: ChildProcess;
  let exited: Promise<unknown>;
  const output: string[] = [];
  let url: string;
  let port: number;

  beforeAll(async () => {
    port = await freePort();
    url = `http://127.0.0.1:${port}`;
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: await workerDatabaseUrl(),
      JWT_SECRET: TEST_JWT_SECRET,
      // Its own dashboard folder, so a developer's running `npm run dev` (.dev/web) is left alone.
      DASHBOARD_DIR: join(mkdtempSync(join(tmpdir(), 'tollgate-dev-')), 'web'),
      WEBHOOK_WORKERS: 'false',
      LOG_LEVEL: 'warn',
    };
    delete env.WEBHOOK_ALLOW_HTTP;
    delete env.WEBHOOK_ALLOW_PRIVATE;
    // Its own process group: the watchers and the service they start all stop with it.
    dev = spawn(process.execPath, [DEV], { env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    dev.stdout!.on('data', (chunk: Buffer) => output.push(chunk.toString()));
    dev.stderr!.on('data', (chunk: Buffer) => output.push(chunk.toString()));
    exited = new Promise((resolve) => dev.once('close', resolve));
    // Nest's watch mode type-checks the whole project before it starts the service: minutes on a busy machine.
    for (let waited = 0; ; waited += 250) {
      const healthy = await fetch(`${url}/health`).then(
        (response) => response.ok,
        () => false,
      );
      if (healthy) break;
      if (dev.exitCode !== null || waited > 240_000)
        throw new Error(`npm run dev did not start:\n${output.join('')}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }, 300_000);

  afterAll(async () => {
    if (dev?.pid !== undefined && dev.exitCode === null) process.kill(-dev.pid, 'SIGTERM');
    await exited;
  });

  it('serves the dashboard at /dashboard, page and bundle', async () => {
    let page = await fetch(`${url}/dashboard`);
    // The dashboard's first watch build may land just after the service answers.
    for (let tries = 0; page.status === 503 && tries < 120; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      page = await fetch(`${url}/dashboard`);
    }
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const html = await page.text();
    expect(html).toContain('<title>Tollgate dashboard</title>');
    const script = /<script type="module"[^>]* src="(\/dashboard\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    expect(script).toBeDefined();
    const bundle = await fetch(`${url}${script}`);
    expect(bundle.status).toBe(200);
    expect(bundle.headers.get('content-type')).toBe('application/javascript; charset=utf-8');
    // Read to the end, so the connection is not left open past the spec.
    expect((await bundle.text()).length).toBeGreaterThan(0);
  });

  it('signs in on the port it listens on: AUTH_DOMAIN and AUTH_URI follow PORT', async () => {
    const nonce = await http(url).post('/auth/nonce', { body: { address: newWallet().address } });
    expect(nonce.status).toBe(200);
    expect(nonce.body.message).toMatch(new RegExp(`^localhost:${port} wants you to sign in`));
    expect(nonce.body.message).toContain(`\nURI: http://localhost:${port}\n`);
  });

  it('accepts a webhook on a local http receiver (development defaults)', async () => {
    const session = await login(url);
    const saved = await http(url).post('/webhooks', {
      token: session.token,
      body: { url: 'http://127.0.0.1:9/hook' },
    });
    expect(saved.status).toBe(200);
    expect(saved.body.url).toBe('http://127.0.0.1:9/hook');
  });
});
