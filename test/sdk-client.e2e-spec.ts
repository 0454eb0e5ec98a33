import {
  apiKey,
  createTollgateClient,
  isTollgateError,
  sessionToken,
  TollgateError,
  unwrap,
  type TollgateClient,
} from '../sdk/src/index.js';
import { startTestApp, type TestApp } from './utils/test-app.js';
import { login, type WalletSession } from './utils/wallet.js';

/** The generated client (sdk/) against the real service: every call typed from docs/openapi.yaml. */
describe('@tollgate/client against the service', () => {
  let t: TestApp;
  let owner: WalletSession;
  let asOwner: TollgateClient;

  beforeAll(async () => {
    t = await startTestApp({ env: { WEBHOOK_WORKERS: 'false' } });
    owner = await login(t.url);
    asOwner = createTollgateClient({
      baseUrl: t.url,
      credential: sessionToken(owner.token, owner.expiresAt),
    });
  });
  afterAll(() => t.close());

  it('reads the health without a credential', async () => {
    const health = await unwrap(createTollgateClient({ baseUrl: t.url }).GET('/health'));
    expect(health.status).toBe('ok');
  });

  it('creates a key with a session, then reads a status and renews with it', async () => {
    const created = await unwrap(
      asOwner.POST('/api-keys', { body: { label: 'sdk', scopes: ['SUBSCRIPTIONS_MANAGE'] } }),
    );
    const asKey = createTollgateClient({ baseUrl: t.url, credential: apiKey(created.key) });
    const before = await unwrap(
      asKey.GET('/subscriptions/status', { params: { query: { address: owner.address } } }),
    );
    expect(before).toMatchObject({ address: owner.address, status: 'none', active: false });

    const renewed = await unwrap(asKey.POST('/subscriptions/renew', { body: {} }));
    expect(renewed).toMatchObject({ address: owner.address, status: 'active', active: true });
  });

  it('throws a typed error with the status and details.code of a refusal', async () => {
    const anonymous = createTollgateClient({ baseUrl: t.url });
    const thrown = await unwrap(
      anonymous.GET('/subscriptions/status', { params: { query: { address: owner.address } } }),
    ).catch((error: unknown) => error);
    expect(thrown).toBeInstanceOf(TollgateError);
    expect(thrown).toMatchObject({ status: 401, code: 'missing_credentials' });
    expect(isTollgateError(thrown, 'missing_credentials')).toBe(true);
  });
});
