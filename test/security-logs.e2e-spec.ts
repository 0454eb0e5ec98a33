import { http } from './utils/http.js';
import { Receiver } from './utils/receiver.js';
import { startServiceProcess } from './utils/service-process.js';
import { startTestApp } from './utils/test-app.js';
import { newWallet } from './utils/wallet.js';

describe('no secret in any log line', () => {
  it('keeps tokens, keys, signatures and webhook secrets out of the logs, even at trace level', async () => {
    const receiver = await Receiver.start();
    const t = await startTestApp({
      env: { LOG_LEVEL: 'trace', WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE: 'true' },
    });
    const secrets: string[] = [];
    try {
      const api = http(t.url);
      const wallet = newWallet();
      const nonce = await api.post('/auth/nonce', { body: { address: wallet.address } });
      const signature = await wallet.signMessage({ message: nonce.body.message });
      const verified = await api.post('/auth/verify', {
        body: { address: wallet.address, signature, message: nonce.body.message },
      });
      const token = verified.body.token as string;
      secrets.push(signature, token);
      const key = (await api.post('/api-keys', { token, body: { label: 'x', scopes: ['FULL'] } })).body
        .key as string;
      secrets.push(key, key.slice(3, 35));
      await api.get('/auth/session', { token: key });
      await api.get('/auth/session', { token: `${key.slice(0, -1)}x` });
      await api.get('/auth/session', { headers: { cookie: `tg_session=${token}` } });
      const hook = await api.post('/webhooks', { token, body: { url: receiver.url } });
      const rotated = await api.post('/webhooks', {
        token: key,
        body: { id: hook.body.id, url: receiver.url, rotateSecret: true },
      });
      secrets.push(hook.body.secret, rotated.body.secret);
      await api.post('/webhooks/test', { token, body: {} });
      await api.post('/subscriptions/renew', { token: key, body: {} });
      await receiver.waitFor(2);
      await api.post('/auth/logout', { token });
      await api.post('/auth/verify', { body: { address: wallet.address, signature } });
    } finally {
      await t.close();
      await receiver.close();
    }
    const lines = t.logs.map((line) => JSON.stringify(line));
    expect(lines.length).toBeGreaterThan(10);
    for (const secret of secrets) {
      expect(secret.length).toBeGreaterThan(20);
      expect(lines.filter((line) => line.includes(secret))).toEqual([]);
    }
  });
});

describe('process lifecycle on the embedded database', () => {
  // A terminal's Ctrl-C reaches npm and node alike, and npm forwards it: node sees SIGINT twice.
  it.each([
    ['SIGTERM', ['SIGTERM']],
    ['SIGINT twice (Ctrl-C under npm start)', ['SIGINT', 'SIGINT']],
  ] as const)(
    'starts its own PostgreSQL when DATABASE_URL is unset and stops everything within 10 s of %s',
    async (_name, signals) => {
      const { mkdtempSync, chmodSync } = await import('node:fs');
      const { tmpdir } = await import('node:os');
      const { join } = await import('node:path');
      const dataDir = mkdtempSync(join(tmpdir(), 'tollgate-lifecycle-'));
      chmodSync(dataDir, 0o755);
      const service = await startServiceProcess('', {
        DATABASE_URL: '',
        DATA_DIR: dataDir,
        WEBHOOK_WORKERS: 'false',
      });
      const health = await http(service.url).get('/health');
      expect(health.body.checks.database.status).toBe('up');
      const stoppedAt = Date.now();
      const exited = service.kill(signals[0]);
      for (const signal of signals.slice(1)) {
        // Apart, as npm's forwarded copy arrives: two pending signals would be delivered as one.
        await new Promise((resolve) => setTimeout(resolve, 30));
        void service.kill(signal);
      }
      const code = await exited;
      expect(code).toBe(0);
      expect(Date.now() - stoppedAt).toBeLessThan(10_000);
      const { execFileSync } = await import('node:child_process');
      const running = execFileSync('ps', ['-eo', 'args']).toString();
      expect(running).not.toContain(join(dataDir, 'postgres'));
    },
    120_000,
  );
});
