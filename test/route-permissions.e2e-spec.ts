import { http } from './utils/http.js';
import { routeTable, type RouteEntry } from './utils/route-table.js';
import { startTestApp, type TestApp } from './utils/test-app.js';
import { login, type WalletSession } from './utils/wallet.js';

/**
 * Every route with its permission metadata, walked at runtime. A change to this snapshot is a permission change:
 * review it as one, don't just refresh it.
 */
describe('route permissions', () => {
  let t: TestApp;
  let routes: RouteEntry[];
  let owner: WalletSession;
  const keys: Record<string, string> = {};

  beforeAll(async () => {
    t = await startTestApp();
    routes = routeTable(t.app);
    owner = await login(t.url);
    for (const scope of ['READ_ONLY', 'SUBSCRIPTIONS_MANAGE', 'FULL']) {
      const created = await http(t.url).post('/api-keys', {
        token: owner.token,
        body: { label: scope, scopes: [scope] },
      });
      keys[scope] = created.body.key;
    }
  });
  afterAll(async () => {
    await t.close();
  });

  it('matches the reviewed snapshot', () => {
    expect(routes).toMatchSnapshot();
  });

  it('leaves only the login, health, plan and payment-plan routes public', () => {
    expect(routes.filter((route) => route.public).map((route) => `${route.method} ${route.path}`)).toEqual([
      'POST /auth/nonce',
      'POST /auth/verify',
      'GET /health',
      'GET /health/live',
      'GET /health/ready',
      'GET /plans',
      'GET /plans/:id',
      'GET /subscriptions/plan',
    ]);
  });

  /**
   * Routes whose handler, past the scope check, admits operators only (the owner here is none): a credential with
   * the scope reaches that check and is refused with `operator_required`, which test/plans.e2e-spec.ts covers.
   */
  const OPERATOR_ONLY = new Set(['POST /plans', 'PATCH /plans/:id', 'POST /plans/:id/archive']);

  const concretePath = (path: string) => path.replace(/:[A-Za-z]+/g, '00000000-0000-4000-8000-000000000000');

  /** Every protected route × every credential: a credential passes exactly when the route's scopes say so. */
  it('enforces the scopes of every route for every credential', async () => {
    const api = http(t.url);
    const checked: string[] = [];
    for (const route of routes.filter((entry) => !entry.public)) {
      const path = concretePath(route.path) + (route.method === 'GET' ? `?address=${owner.address}` : '');
      const body = route.method === 'GET' ? undefined : {};

      const anonymous = await api.send(route.method, path, { body });
      expect({ route: route.path, status: anonymous.status }).toEqual({ route: route.path, status: 401 });

      const credentials: Array<[string, string, boolean]> = [
        // A fresh session per route: logout would revoke a shared one.
        ['jwt', (await login(t.url, owner.account)).token, true],
        ...(['READ_ONLY', 'SUBSCRIPTIONS_MANAGE', 'FULL'] as const).map(
          (scope): [string, string, boolean] => [
            scope,
            keys[scope]!,
            !route.jwtOnly && route.scopes.includes(scope),
          ],
        ),
      ];
      for (const [name, token, allowed] of credentials) {
        const response = await api.send(route.method, path, { body, token });
        const outcome =
          response.status === 401 || response.status === 403 ? response.body.details.code : 'passed';
        const passed = OPERATOR_ONLY.has(`${route.method} ${route.path}`) ? 'operator_required' : 'passed';
        const expected = allowed ? passed : route.jwtOnly ? 'jwt_required' : 'insufficient_scope';
        expect({ route: `${route.method} ${route.path}`, credential: name, outcome }).toEqual({
          route: `${route.method} ${route.path}`,
          credential: name,
          outcome: expected,
        });
        checked.push(`${route.method} ${route.path} ${name}`);
      }
    }
    expect(checked.length).toBeGreaterThanOrEqual(4 * 4);
  });
});
