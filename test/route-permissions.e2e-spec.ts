import { http } from './utils/http.js';
import { routeTable, type RouteEntry } from './utils/route-table.js';
import { startTestApp, type TestApp } from './utils/test-app.js';
import { login, newWallet, type WalletSession } from './utils/wallet.js';

/**
 * Every route with its permission metadata, walked at runtime. A change to this snapshot is a permission change:
 * review it as one, don't just refresh it.
 */
describe('route permissions', () => {
  let t: TestApp;
  let routes: RouteEntry[];
  let owner: WalletSession;
  let operator: WalletSession;
  const operatorWallet = newWallet();
  const keys: Record<string, string> = {};
  let operatorKey: string;

  beforeAll(async () => {
    t = await startTestApp({ env: { OPERATOR_ADDRESSES: operatorWallet.address.toLowerCase() } });
    routes = routeTable(t.app);
    owner = await login(t.url);
    operator = await login(t.url, operatorWallet);
    for (const scope of ['READ_ONLY', 'SUBSCRIPTIONS_MANAGE', 'FULL']) {
      const created = await http(t.url).post('/api-keys', {
        token: owner.token,
        body: { label: scope, scopes: [scope] },
      });
      keys[scope] = created.body.key;
    }
    const created = await http(t.url).post('/api-keys', {
      token: operator.token,
      body: { label: 'operator', scopes: ['FULL'] },
    });
    operatorKey = created.body.key;
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

  const concretePath = (path: string) => path.replace(/:[A-Za-z]+/g, '00000000-0000-4000-8000-000000000000');

  /**
   * Every protected route × every credential: a credential passes exactly when the route's scopes say so, and on an
   * operator-only route only when it is an operator's.
   */
  it('enforces the scopes of every route for every credential', async () => {
    const api = http(t.url);
    const checked: string[] = [];
    for (const route of routes.filter((entry) => !entry.public)) {
      const path = concretePath(route.path) + (route.method === 'GET' ? `?address=${owner.address}` : '');
      const body = route.method === 'GET' ? undefined : {};

      const anonymous = await api.send(route.method, path, { body });
      expect({ route: route.path, status: anonymous.status }).toEqual({ route: route.path, status: 401 });

      /** name, token, what its scopes allow, whether it is an operator's. */
      const credentials: Array<[string, string, boolean, boolean]> = [
        // A fresh session per route: logout would revoke a shared one.
        ['jwt', (await login(t.url, owner.account)).token, true, false],
        ...(['READ_ONLY', 'SUBSCRIPTIONS_MANAGE', 'FULL'] as const).map(
          (scope): [string, string, boolean, boolean] => [
            scope,
            keys[scope]!,
            !route.jwtOnly && route.scopes.includes(scope),
            false,
          ],
        ),
        ['operator jwt', (await login(t.url, operatorWallet)).token, true, true],
        ['operator FULL', operatorKey, !route.jwtOnly && route.scopes.includes('FULL'), true],
      ];
      for (const [name, token, scoped, ofOperator] of credentials) {
        const response = await api.send(route.method, path, { body, token });
        const outcome =
          response.status === 401 || response.status === 403 ? response.body.details.code : 'passed';
        const refused = route.jwtOnly ? 'jwt_required' : 'insufficient_scope';
        const expected = !scoped ? refused : route.operator && !ofOperator ? 'operator_required' : 'passed';
        expect({ route: `${route.method} ${route.path}`, credential: name, outcome }).toEqual({
          route: `${route.method} ${route.path}`,
          credential: name,
          outcome: expected,
        });
        checked.push(`${route.method} ${route.path} ${name}`);
      }
    }
    expect(checked.length).toBeGreaterThanOrEqual(4 * 6);
  });
});
