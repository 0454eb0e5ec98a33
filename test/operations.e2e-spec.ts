import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import { fileURLToPath } from 'node:url';
import { freePort } from '../src/common/net/free-port.js';
import { http } from './utils/http.js';
import { Receiver, until } from './utils/receiver.js';
import { startServiceProcess, type ServiceProcess } from './utils/service-process.js';
import { workerDatabaseUrl } from './utils/test-database.js';
import { startTestApp, TEST_JWT_SECRET } from './utils/test-app.js';
import { login } from './utils/wallet.js';

const MAIN = fileURLToPath(new URL('../dist/src/main.js', import.meta.url));

/** One sample's value from Prometheus' text format, or undefined when the series is absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('metrics on their own listener (METRICS_PORT)', () => {
  let service: ServiceProcess;
  let metricsUrl: string;
  let receiver: Receiver;

  beforeAll(async () => {
    const metricsPort = await freePort();
    metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
    receiver = await Receiver.start();
    service = await startServiceProcess(await workerDatabaseUrl(), {
      METRICS_PORT: String(metricsPort),
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOW_PRIVATE: 'true',
    });
  });
  afterAll(async () => {
    await service?.kill();
    await receiver?.close();
  });

  it('counts requests by route template and status, auth failures by code, changes and deliveries', async () => {
    const api = http(service.url);
    // Three, and the one by which the helper saw the service up.
    for (let i = 0; i < 3; i++) expect((await api.get('/health')).status).toBe(200);
    const session = await login(service.url);
    // Two addresses, one series: the label is the route template, not the URL.
    await api.get(`/subscriptions/status?address=${session.address}`, { token: session.token });
    await api.get(`/subscriptions/status?address=${session.address.toLowerCase()}`, { token: session.token });
    await api.get('/subscriptions/status');
    await api.get('/no/such/route');
    await api.post('/webhooks', { token: session.token, body: { url: receiver.url } });
    await api.post('/subscriptions/renew', { token: session.token, body: {} });
    await api.post('/subscriptions/cancel', { token: session.token, body: {} });
    await receiver.waitFor(2);

    let text = '';
    await until(
      async () => {
        text = await (await fetch(metricsUrl)).text();
        return (
          (sample(text, 'tollgate_webhook_delivery_attempts_total{outcome="succeeded",mode="scheduled"}') ??
            0) >= 2
        );
      },
      10_000,
      'two successful deliveries counted',
    );
    expect(
      sample(text, 'http_request_duration_seconds_count{method="GET",route="/health",status_code="200"}'),
    ).toBe(4);
    expect(
      sample(
        text,
        'http_request_duration_seconds_count{method="GET",route="/subscriptions/status",status_code="200"}',
      ),
    ).toBe(2);
    expect(
      sample(
        text,
        'http_request_duration_seconds_count{method="GET",route="/subscriptions/status",status_code="401"}',
      ),
    ).toBe(1);
    expect(
      sample(text, 'http_request_duration_seconds_count{method="GET",route="unmatched",status_code="404"}'),
    ).toBe(1);
    expect(
      sample(
        text,
        'http_request_duration_seconds_bucket{le="+Inf",method="GET",route="/health",status_code="200"}',
      ),
    ).toBe(4);
    expect(sample(text, 'tollgate_auth_failures_total{status_code="401",code="missing_credentials"}')).toBe(
      1,
    );
    expect(sample(text, 'tollgate_subscription_changes_total{type="renewed"}')).toBe(1);
    expect(sample(text, 'tollgate_subscription_changes_total{type="canceled"}')).toBe(1);
    expect(sample(text, 'tollgate_webhook_delivery_lag_seconds_count')).toBeGreaterThanOrEqual(2);
    expect(sample(text, 'tollgate_webhook_queue_depth')).toBeGreaterThanOrEqual(0);
    expect(sample(text, 'tollgate_webhook_queue_oldest_seconds')).toBeGreaterThanOrEqual(0);
    const inUse = sample(text, 'tollgate_db_pool_open_connections{state="in_use"}')!;
    const idle = sample(text, 'tollgate_db_pool_open_connections{state="idle"}')!;
    expect([inUse, idle]).toEqual([expect.any(Number), expect.any(Number)]);
    expect(inUse + idle).toBeGreaterThan(0);
    expect(sample(text, 'tollgate_db_pool_waiting_requests')).toBe(0);
    // The deprecated forms, one release more: the same readings.
    expect(sample(text, 'tollgate_webhook_queue{measure="depth"}')).toBe(
      sample(text, 'tollgate_webhook_queue_depth'),
    );
    expect(sample(text, 'tollgate_webhook_queue{measure="oldest_seconds"}')).toBe(
      sample(text, 'tollgate_webhook_queue_oldest_seconds'),
    );
    expect(sample(text, 'tollgate_db_pool_connections{state="total"}')).toBe(inUse + idle);
    expect(sample(text, 'tollgate_db_pool_connections{state="waiting"}')).toBe(0);
    expect(sample(text, 'process_resident_memory_bytes')).toBeGreaterThan(0);
    expect(text).toContain('nodejs_eventloop_lag_seconds');
  }, 60_000);

  it('keeps /metrics off the public port', async () => {
    expect((await http(service.url).get('/metrics')).status).toBe(404);
  });
});

describe('liveness, readiness and request ids outside Nest', () => {
  it('answers /health/live without the database, /health/ready with it', async () => {
    const t = await startTestApp();
    try {
      const live = await http(t.url).get('/health/live');
      expect(live.status).toBe(200);
      expect(live.body).toEqual({ status: 'ok' });
      // Routes outside Nest's filter name their request too (the helper checks details.requestId on every error).
      expect((await http(t.url).get('/dashboard/no-such-file.js')).body.details.code).toBe('not_found');
      const ready = await http(t.url).get('/health/ready');
      expect(ready.status).toBe(200);
      expect(ready.body).toMatchObject({ status: 'ok', checks: { database: { status: 'up' } } });
    } finally {
      await t.close();
    }
  });
});

describe('starting on a taken port', () => {
  let squatter: Server;
  let port: number;

  beforeAll(async () => {
    squatter = createServer();
    await new Promise<void>((resolve) => squatter.listen(0, '127.0.0.1', resolve));
    port = (squatter.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((resolve) => squatter.close(() => resolve())));

  it.each([
    ['PORT', 'PORT:'],
    ['METRICS_PORT', 'METRICS_PORT:'],
  ])(
    'says so in one line when %s is taken, and exits 78',
    async (variable, prefix) => {
      const child = spawn(process.execPath, [MAIN], {
        env: {
          ...process.env,
          NODE_ENV: 'test',
          DATABASE_URL: await workerDatabaseUrl(),
          HOST: '127.0.0.1',
          PORT: String(await freePort()),
          METRICS_PORT: String(await freePort()),
          JWT_SECRET: TEST_JWT_SECRET,
          LOG_LEVEL: 'warn',
          [variable]: String(port),
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const code = await new Promise((resolve) => child.once('exit', resolve));
      expect(code).toBe(78);
      expect(stderr.trim()).toBe(
        `${prefix} port ${port} on 127.0.0.1 is already in use (another Tollgate or another program): stop it or choose another port.`,
      );
    },
    60_000,
  );
});
