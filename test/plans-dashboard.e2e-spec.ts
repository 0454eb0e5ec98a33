import type { Browser } from 'playwright-core';
import { http } from './utils/http.js';
import {
  DashboardPages,
  launchChromium,
  screenshots,
  startDashboardApp,
  TestWallet,
} from './utils/browser.js';
import type { TestApp } from './utils/test-app.js';
import { newWallet } from './utils/wallet.js';

const BROWSER_TIMEOUT = 180_000;

/** Plans in the dashboard: the operator manages them, every wallet sees the cards; each claim checked on the API. */
describe('plans in the dashboard', () => {
  let t: TestApp;
  let browser: Browser;
  let pages: DashboardPages;
  const operator = newWallet();

  beforeAll(async () => {
    t = await startDashboardApp({ OPERATOR_ADDRESSES: operator.address });
    browser = await launchChromium();
    pages = new DashboardPages(browser, `${t.url}/dashboard`);
  }, BROWSER_TIMEOUT);
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
      await pro.getByText('7 days free trial').waitFor();
      await expect(
        pro.getByRole('list', { name: 'Features of Pro' }).locator('li').allTextContents(),
      ).resolves.toEqual(['api.calls', 'export.csv', 'support.priority']);
      await expect(page.getByTestId('plan-default').locator('.plan-price').textContent()).resolves.toBe(
        'Free every 30 days',
      );
      expect(await page.getByTestId('plan-legacy').count()).toBe(0);
      expect(await page.getByRole('tab', { name: 'Operators' }).count()).toBe(0);
      await screenshots(page, 'plans-cards');
    },
    BROWSER_TIMEOUT,
  );
});
