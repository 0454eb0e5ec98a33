import type { Browser, Page } from 'playwright-core';
import { http } from './utils/http.js';
import {
  DashboardPages,
  launchChromium,
  screenshots,
  startDashboardApp,
  TestWallet,
} from './utils/browser.js';
import type { TestApp } from './utils/test-app.js';
import { login, newWallet } from './utils/wallet.js';

const BROWSER_TIMEOUT = 180_000;

const DAY = 86_400;

/** The plans a wallet chooses among (besides `default` and the operator test's `pro`). */
const PLANS = [
  { id: 'basic', name: 'Basic', periodSeconds: 30 * DAY, pricePerPeriod: '5', features: ['api.calls'] },
  {
    id: 'team',
    name: 'Team',
    description: 'For a team that shares one wallet: exports, ten seats and a person to call.',
    periodSeconds: 30 * DAY,
    pricePerPeriod: '40',
    features: ['api.calls', 'export.csv', 'seats.10', 'support.priority-phone-and-email-within-one-day'],
  },
  { id: 'gone', name: 'Gone', periodSeconds: DAY, pricePerPeriod: '1', features: [] },
];

/** Plans in the dashboard: the operator manages them, every wallet sees the cards; each claim checked on the API. */
describe('plans in the dashboard', () => {
  let t: TestApp;
  let browser: Browser;
  let pages: DashboardPages;
  let operatorToken: string;
  const operator = newWallet();

  beforeAll(async () => {
    t = await startDashboardApp({ OPERATOR_ADDRESSES: operator.address });
    browser = await launchChromium();
    pages = new DashboardPages(browser, `${t.url}/dashboard`);
    operatorToken = (await login(t.url, operator)).token;
    for (const body of PLANS) {
      expect((await http(t.url).post('/plans', { token: operatorToken, body })).status).toBe(200);
    }
  }, BROWSER_TIMEOUT);

  const status = async (token: string) => (await http(t.url).get('/subscriptions/status', { token })).body;

  /** The card of plan `id` in the picker. */
  const card = (page: Page, id: string) => page.getByTestId(`plan-${id}`);
  afterEach(() => pages?.closeAll());
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it(
    'lets an operator create a plan, edit its features and archive another',
    async () => {
      const { page, token } = await pages.signedIn(new TestWallet(operator));
      await http(t.url).post('/plans', {
        token,
        body: { id: 'legacy', name: 'Legacy', periodSeconds: 86_400, pricePerPeriod: '1' },
      });
      await page.getByRole('tab', { name: 'Operators' }).click();
      const form = page.getByRole('form', { name: 'Create a plan' });
      await form.getByLabel('Id').fill('pro');
      await form.getByLabel('Name').fill('Pro');
      await form.getByLabel('Period (days)').fill('30');
      await form.getByLabel('Price (smallest unit)').fill('10000000');
      await form.getByLabel('Trial (days, optional)').fill('7');
      await form.getByLabel('Features (comma-separated)').fill('api.calls, export.csv');
      await form.getByRole('button', { name: 'Create plan' }).click();
      await page.getByText('Created Pro: it is offered now.').waitFor();
      expect((await http(t.url).get('/plans/pro')).body).toMatchObject({
        periodSeconds: 2_592_000,
        pricePerPeriod: '10000000',
        trialSeconds: 604_800,
        features: ['api.calls', 'export.csv'],
      });

      await page
        .getByLabel('Features of Pro, comma-separated')
        .fill('api.calls, export.csv, support.priority');
      await page.getByTestId('plan-pro').getByRole('button', { name: 'Save' }).click();
      await page.getByText('Saved Pro.').waitFor();
      expect((await http(t.url).get('/plans/pro')).body.features).toEqual([
        'api.calls',
        'export.csv',
        'support.priority',
      ]);

      await page.getByRole('button', { name: 'Archive Legacy' }).click();
      await page
        .getByRole('dialog', { name: 'Archive Legacy?' })
        .getByRole('button', { name: 'Archive' })
        .click();
      await page.getByText(/^Archived Legacy/).waitFor();
      await page.getByTestId('plan-legacy').getByText('Archived').waitFor();
      expect((await http(t.url).get('/plans/legacy')).body.offered).toBe(false);
      await screenshots(page, 'plans-operator');
    },
    BROWSER_TIMEOUT,
  );

  it(
    'shows every wallet the offered plans with price, period, trial and features',
    async () => {
      const { page } = await pages.signedIn(new TestWallet(newWallet()));
      const pro = page.getByTestId('plan-pro');
      await pro.waitFor();
      await expect(pro.locator('.plan-price').textContent()).resolves.toBe('10000000 units every 30 days');
      await expect(pro.getByTestId('plan-trial').textContent()).resolves.toBe('7-day free trial');
      await pro.getByRole('button', { name: 'Start the 7-day free trial' }).waitFor();
      await card(page, 'basic').getByRole('button', { name: 'Subscribe', exact: true }).waitFor();
      await expect(
        pro.getByRole('list', { name: 'Features of Pro' }).locator('li').allTextContents(),
      ).resolves.toEqual(['api.calls', 'export.csv', 'support.priority']);
      await expect(page.getByTestId('plan-default').locator('.plan-price').textContent()).resolves.toBe(
        'Free every 30 days',
      );
      expect(await page.getByTestId('plan-legacy').count()).toBe(0);
      expect(await page.getByRole('tab', { name: 'Operators' }).count()).toBe(0);
      await page.getByRole('heading', { name: 'Choose a plan' }).waitFor();
      await screenshots(page, 'plans-cards');

      // At 375 px the cards stand in one column, each as wide as the others and within the screen.
      await page.setViewportSize({ width: 375, height: 812 });
      const boxes = await Promise.all(
        ['default', 'basic', 'team', 'pro'].map(async (id) => (await card(page, id).boundingBox())!),
      );
      for (const box of boxes) {
        expect(box.x).toBe(boxes[0]!.x);
        expect(box.width).toBe(boxes[0]!.width);
        expect(box.x + box.width).toBeLessThanOrEqual(375);
      }
      for (let i = 1; i < boxes.length; i++)
        expect(boxes[i]!.y).toBeGreaterThan(boxes[i - 1]!.y + boxes[i - 1]!.height);
      expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(375);
    },
    BROWSER_TIMEOUT,
  );

  it(
    'subscribes from a card, then shows the plan and its features on the subscription',
    async () => {
      const { page, token } = await pages.signedIn();
      await expect(page.getByTestId('current-plan').textContent()).resolves.toBe('None yet');
      // With plans to choose from, a wallet that never subscribed starts in the picker.
      await page.getByText('Choose a plan below to subscribe.').waitFor();
      await page.getByTestId('current-features').getByText('None: no active subscription.').waitFor();

      await card(page, 'team').getByRole('button', { name: 'Subscribe', exact: true }).click();
      await page.getByText(/^Subscribed to Team: until /).waitFor();
      const after = await status(token);
      expect(after).toMatchObject({ status: 'active', plan: { id: 'team', name: 'Team' } });
      expect(after.features).toEqual(PLANS[1]!.features);

      await expect(page.getByTestId('subscription-status').textContent()).resolves.toBe('Active');
      await expect(page.getByTestId('current-plan').textContent()).resolves.toBe(
        'Team · 40 units every 30 days',
      );
      await expect(page.getByTestId('current-features').locator('li').allTextContents()).resolves.toEqual(
        PLANS[1]!.features,
      );
      await expect(card(page, 'team').getByTestId('plan-current').textContent()).resolves.toBe('Your plan');
      // On a plan, the picker offers changes: dearer per second now, cheaper at the period's end.
      await page.getByRole('heading', { name: 'Change plan' }).waitFor();
      await card(page, 'pro').getByRole('button', { name: 'Upgrade now' }).waitFor();
      await card(page, 'basic')
        .getByRole('button', { name: /^Switch on / })
        .waitFor();
      await screenshots(page, 'plans-current');
    },
    BROWSER_TIMEOUT,
  );

  it(
    'says in words why a plan archived after the page loaded cannot be chosen',
    async () => {
      const { page, token } = await pages.signedIn();
      const gone = card(page, 'gone');
      await gone.getByRole('button', { name: 'Subscribe', exact: true }).waitFor();
      const archived = await http(t.url).post('/plans/gone/archive', { token: operatorToken });
      expect(archived.status).toBe(200);

      await gone.getByRole('button', { name: 'Subscribe', exact: true }).click();
      await gone
        .getByRole('alert')
        .filter({ hasText: 'Gone is no longer offered: choose another plan.' })
        .waitFor();
      expect(await status(token)).toMatchObject({ status: 'none' });
      const refused = await http(t.url).post('/subscriptions/renew', { token, body: { plan: 'gone' } });
      expect(refused.body.details.code).toBe('plan_archived');
      await screenshots(page, 'plans-error');
    },
    BROWSER_TIMEOUT,
  );

  it(
    'upgrades now, schedules a cheaper plan for the period end, and calls the switch off',
    async () => {
      const { page, token } = await pages.signedIn();
      await card(page, 'basic').getByRole('button', { name: 'Subscribe', exact: true }).click();
      await page.getByText(/^Subscribed to Basic: until /).waitFor();
      const onBasic = await status(token);

      // Team costs 8 times Basic per second: at once, the time left shrinks to an eighth.
      await card(page, 'team').getByRole('button', { name: 'Upgrade now' }).click();
      const upgrade = page.getByRole('dialog', { name: 'Upgrade to Team now?' });
      await upgrade.getByText(/the period ends sooner, on /).waitFor();
      await screenshots(page, 'plans-upgrade-dialog');
      const clicked = Date.now();
      await upgrade.getByRole('button', { name: 'Upgrade now' }).click();
      await page.getByText(/^Now on Team: the period ends on /).waitFor();
      const answered = Date.now();
      const onTeam = await status(token);
      expect(onTeam).toMatchObject({ status: 'active', plan: { id: 'team' }, pendingPlan: null });
      // Converted between the click and the answer: an eighth of what was left then, to the second.
      const oldEnd = Date.parse(onBasic.currentPeriodEnd);
      const newEnd = Date.parse(onTeam.currentPeriodEnd);
      expect(newEnd).toBeGreaterThanOrEqual(clicked + (oldEnd - answered) / 8 - 1000);
      expect(newEnd).toBeLessThanOrEqual(answered + (oldEnd - clicked) / 8);
      await expect(page.getByTestId('period-end').locator('time').getAttribute('datetime')).resolves.toBe(
        onTeam.currentPeriodEnd,
      );
      await expect(card(page, 'team').getByTestId('plan-current').textContent()).resolves.toBe('Your plan');

      // Basic is cheaper: it waits for the period's end, and Team stays until then.
      await card(page, 'basic')
        .getByRole('button', { name: /^Switch on / })
        .click();
      const downgrade = page.getByRole('dialog', { name: "Switch to Basic at the period's end?" });
      await downgrade.getByRole('button', { name: /^Switch on / }).click();
      // Told once, by the banner with its date (no second note saying the same).
      await page
        .getByTestId('pending-plan')
        .getByText(/^Switching to Basic on /)
        .waitFor();
      expect(await page.getByText(/starts on .*, when the current period ends/).count()).toBe(0);
      const scheduled = await status(token);
      expect(scheduled).toMatchObject({
        plan: { id: 'team' },
        pendingPlan: { id: 'basic', name: 'Basic', effectiveAt: onTeam.currentPeriodEnd },
      });
      await card(page, 'basic').getByTestId('plan-pending').waitFor();
      await screenshots(page, 'plans-scheduled');

      await page.getByTestId('pending-plan').getByRole('button', { name: 'Keep Team' }).click();
      await page.getByText('The switch to Basic is called off: Team stays.').waitFor();
      expect(await page.getByTestId('pending-plan').count()).toBe(0);
      expect(await status(token)).toMatchObject({ plan: { id: 'team' }, pendingPlan: null });
      // Each change is in the history, newest first, naming its plan.
      const history = page.getByRole('table', { name: /History of your subscription/ });
      await history.getByText('Change called off').waitFor();
      await expect(history.locator('tbody tr td[data-label="Event"]').allTextContents()).resolves.toEqual([
        'Change called off (was to Basic)',
        'Change scheduled to Basic',
        'Plan changed to Team',
        'Renewed',
      ]);
    },
    BROWSER_TIMEOUT,
  );

  it(
    "starts a plan's free trial once, and a second time subscribes at the plan's price",
    async () => {
      const { page, token } = await pages.signedIn();
      await card(page, 'pro').getByRole('button', { name: 'Start the 7-day free trial' }).click();
      await page.getByText(/^Your Pro trial runs until /).waitFor();
      const trial = await status(token);
      expect(trial).toMatchObject({ status: 'trialing', active: true, plan: { id: 'pro' } });
      expect(Date.parse(trial.trialEnd) - Date.parse(trial.currentPeriodStart)).toBe(7 * DAY * 1000);
      await expect(page.getByTestId('subscription-status').textContent()).resolves.toBe('Free trial');
      await expect(page.getByTestId('trial-end').locator('time').getAttribute('datetime')).resolves.toBe(
        trial.trialEnd,
      );
      await expect(card(page, 'pro').getByTestId('plan-current').textContent()).resolves.toBe(
        'Your plan, on trial',
      );
      // The service changes the plan of a paid period only: no change is offered during the trial.
      await page.getByText(/^During the free trial the plan stays Pro\./).waitFor();
      expect(await page.getByRole('button', { name: /^(Upgrade now|Switch on )/ }).count()).toBe(0);
      await page.getByRole('button', { name: 'Subscribe after the trial' }).waitFor();
      await screenshots(page, 'plans-trial');

      // Ended now, then chosen again: no second trial, the plan is subscribed to as usual.
      await page.getByRole('button', { name: 'Cancel now' }).click();
      await page
        .getByRole('dialog', { name: 'Cancel right now?' })
        .getByRole('button', { name: 'Cancel now' })
        .click();
      await page.getByText('The subscription is canceled as of now.').waitFor();
      await card(page, 'pro').getByRole('button', { name: 'Start the 7-day free trial' }).click();
      await page.getByText(/^Subscribed to Pro: until /).waitFor();
      expect(await status(token)).toMatchObject({ status: 'active', trialEnd: null, plan: { id: 'pro' } });
    },
    BROWSER_TIMEOUT,
  );

  it(
    "lets an operator upgrade a customer's plan from the customer's picker",
    async () => {
      const customer = await login(t.url);
      const subscribed = await http(t.url).post('/subscriptions/renew', {
        token: customer.token,
        body: { plan: 'basic' },
      });
      expect(subscribed.body.plan.id).toBe('basic');
      const { page } = await pages.signedIn(new TestWallet(operator));
      await page.getByRole('tab', { name: 'Operators' }).click();
      await page.getByLabel('Wallet address').fill(customer.address);
      await page.getByRole('button', { name: 'Look up' }).click();
      await page.getByRole('heading', { name: 'Change plan' }).waitFor();
      await page.getByText(/the time left on the customer's period is converted/).waitFor();

      await card(page, 'team').getByRole('button', { name: 'Upgrade now' }).click();
      await page
        .getByRole('dialog', { name: 'Upgrade to Team now?' })
        .getByRole('button', { name: 'Upgrade now' })
        .click();
      await page.getByText(/^Now on Team: the period ends on /).waitFor();
      expect(await status(customer.token)).toMatchObject({ plan: { id: 'team' }, pendingPlan: null });
    },
    BROWSER_TIMEOUT,
  );
});
