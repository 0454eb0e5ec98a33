import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { OtlpReceiver, type ReceivedSpan } from './tracing/otlp-receiver.js';
import { http } from './utils/http.js';
import { Receiver, until } from './utils/receiver.js';
import { startServiceProcess, type ServiceProcess } from './utils/service-process.js';
import { workerDatabaseUrl } from './utils/test-database.js';
import { login } from './utils/wallet.js';

const PROBE = fileURLToPath(new URL('./tracing/module-probe.mjs', import.meta.url));
const SERVER = 2;
const CLIENT = 3;

/**
 * The OpenTelemetry modules the probe saw the process load, once it has exited, but for the API package: prom-client
 * loads that (a no-op until an SDK registers) whatever the settings, for its exemplars.
 */
function loadedOpenTelemetryModules(service: ServiceProcess): string[] {
  return service.output
    .join('')
    .split('\n')
    .filter((line) => line.startsWith('loaded-module ') && !line.includes('/@opentelemetry/api/'));
}

/**
 * OpenTelemetry tracing, on when OTEL_EXPORTER_OTLP_ENDPOINT is set: the built service as a process exporting to a
 * local OTLP/HTTP receiver.
 */
describe('tracing', () => {
  let databaseUrl: string;
  const env = {
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_ALLOW_PRIVATE: 'true',
    NODE_OPTIONS: `--import=${PROBE}`,
  };

  beforeAll(async () => {
    databaseUrl = await workerDatabaseUrl();
  });

  describe('on', () => {
    let collector: OtlpReceiver;
    let webhooks: Receiver;
    let service: ServiceProcess;

    beforeAll(async () => {
      collector = await OtlpReceiver.start();
      webhooks = await Receiver.start();
      service = await startServiceProcess(databaseUrl, {
        ...env,
        LOG_LEVEL: 'info',
        OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
        OTEL_SERVICE_NAME: 'tollgate-under-test',
        OTEL_BSP_SCHEDULE_DELAY: '50',
      });
    });
    afterAll(async () => {
      await service?.kill();
      await webhooks.close();
      await collector.close();
    });

    it("continues the caller's trace: server span, its queries, the webhook delivery, the receiver's traceparent and the log line", async () => {
      const session = await login(service.url);
      const created = await http(service.url).post('/webhooks', {
        token: session.token,
        body: { url: webhooks.url, events: ['subscription.renewed'] },
      });
      expect(created.status).toBe(200);

      const traceId = randomBytes(16).toString('hex');
      const callerSpanId = randomBytes(8).toString('hex');
      const tested = await http(service.url).post('/webhooks/test', {
        token: session.token,
        headers: { traceparent: `00-${traceId}-${callerSpanId}-01` },
        body: {},
      });
      expect(tested.status).toBe(200);
      expect(tested.body.deliveries[0].success).toBe(true);

      const inTrace = (): ReceivedSpan[] => collector.spans.filter((span) => span.traceId === traceId);
      const server = (): ReceivedSpan | undefined =>
        inTrace().find((span) => span.kind === SERVER && span.parentSpanId === callerSpanId);
      await until(
        () => server() !== undefined && inTrace().some((span) => span.name === 'webhook delivery'),
        15_000,
        'the server span and the delivery span at the collector',
      );
      const serverSpan = server()!;
      expect(serverSpan).toMatchObject({ name: 'POST /webhooks/test', service: 'tollgate-under-test' });
      expect(serverSpan.attributes).toMatchObject({
        'http.route': '/webhooks/test',
        'url.path': '/webhooks/test',
        'http.response.status_code': 200,
      });

      const queries = inTrace().filter(
        (span) => span.kind === CLIENT && span.attributes['db.system.name'] === 'postgresql',
      );
      expect(queries.length).toBeGreaterThan(0);
      expect(queries.some((span) => span.parentSpanId === serverSpan.spanId)).toBe(true);

      const delivery = inTrace().find((span) => span.name === 'webhook delivery')!;
      expect(delivery).toMatchObject({ kind: CLIENT, parentSpanId: serverSpan.spanId });
      expect(delivery.attributes).toMatchObject({
        'server.address': '127.0.0.1',
        'http.response.status_code': 200,
        'tollgate.webhook.attempt': 1,
        'tollgate.webhook.mode': 'test',
        'tollgate.webhook.event_type': 'webhook.test',
      });
      const [received] = await webhooks.waitFor(1);
      expect(received!.headers.traceparent).toBe(`00-${traceId}-${delivery.spanId}-01`);

      await until(
        () => service.output.join('').includes(`"traceId":"${traceId}"`),
        5_000,
        "a log line with the request's trace id",
      );
      const line = service.output
        .join('')
        .split('\n')
        .find((text) => text.includes(`"traceId":"${traceId}"`) && text.includes('request completed'));
      expect(line).toBeDefined();
    });

    it('starts a trace of its own for a request without traceparent, and loads OpenTelemetry', async () => {
      const before = collector.spans.length;
      expect((await http(service.url).get('/health')).status).toBe(200);
      await until(
        () =>
          collector.spans.slice(before).some((span) => span.kind === SERVER && span.name === 'GET /health'),
        15_000,
        'the /health server span',
      );
      const span = collector.spans.slice(before).find((s) => s.name === 'GET /health')!;
      expect(span.parentSpanId).toBe('');

      await service.kill();
      // What the "off" case below relies on: the probe does see OpenTelemetry when it is loaded.
      expect(loadedOpenTelemetryModules(service)).toEqual(
        expect.arrayContaining([
          expect.stringContaining('/@opentelemetry/sdk-trace-node/'),
          expect.stringContaining('/@opentelemetry/instrumentation-pg/'),
        ]),
      );
    });
  });

  describe('off', () => {
    it('loads no OpenTelemetry module without OTEL_EXPORTER_OTLP_ENDPOINT', async () => {
      const service = await startServiceProcess(databaseUrl, { ...env, LOG_LEVEL: 'info' });
      const session = await login(service.url);
      const answer = await http(service.url).get(`/subscriptions/status?address=${session.address}`, {
        token: session.token,
        headers: {
          traceparent: `00-${randomBytes(16).toString('hex')}-${randomBytes(8).toString('hex')}-01`,
        },
      });
      expect(answer.status).toBe(200);
      await service.kill();
      expect(loadedOpenTelemetryModules(service)).toEqual([]);
      expect(service.output.join('')).not.toContain('"traceId"');
    });
  });
});
