import { http, renewalsAcrossInstances } from './utils/http.js';
import { Receiver, sleep } from './utils/receiver.js';
import { startServiceProcess, type ServiceProcess } from './utils/service-process.js';
import { startTestApp, type TestApp } from './utils/test-app.js';
import { login } from './utils/wallet.js';

/**
 * Several instances on one PostgreSQL behave as one service (A in this process, B a process of its own): state lives in the database, caches are invalidated
 * on every instance at commit, and background work is shared rather than repeated.
 */
describe('two instances on one database', () => {
  let a: TestApp;
  let b: ServiceProcess;
  let receiver: Receiver;

  beforeAll(async () => {
    const env = { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE: 'true' };
    a = await startTestApp({ env });
    b = await startServiceProcess(a.databaseUrl, env);
    receiver = await Receiver.start();
  });
  afterAll(async () => {
    await b.kill();
    await a.close();
    await receiver.close();
  });

  it('shows on B, at once, a renewal and a cancel made on A (B had the old row cached)', async () => {
    const session = await login(a.url);
    const status = `/subscriptions/status?address=${session.address}`;
    expect((await http(b.url).get(status, { token: session.token })).body.status).toBe('none');
    await http(a.url).post('/subscriptions/renew', { token: session.token, body: {} });
    const afterRenew = await http(b.url).get(status, { token: session.token });
    expect(afterRenew.body).toMatchObject({ status: 'active', cancelAtPeriodEnd: false });
    await http(a.url).post('/subscriptions/cancel', { token: session.token, body: {} });
    expect((await http(b.url).get(status, { token: session.token })).body.cancelAtPeriodEnd).toBe(true);
    await http(b.url).post('/subscriptions/cancel', { token: session.token, body: { immediate: true } });
    expect((await http(a.url).get(status, { token: session.token })).body.status).toBe('canceled');
  });

  it('delivers each event once per attempt, not once per instance', async () => {
    const renewals = 10;
    await renewalsAcrossInstances([a, b], receiver.url, renewals, login);
    await receiver.waitFor(renewals);
    // Give a duplicate, if any instance were to send one, the time to arrive.
    await sleep(1500);
    const ids = receiver.received.map((request) => String(request.headers['webhook-id']));
    expect(ids).toHaveLength(renewals);
    expect(new Set(ids).size).toBe(renewals);
  });
});
