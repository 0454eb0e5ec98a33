import type { Browser } from 'playwright-core';
import {
  DashboardPages,
  launchChromium,
  screenshots,
  startDashboardApp,
  TestWallet,
} from './utils/browser.js';
import { http } from './utils/http.js';
import { Receiver, until } from './utils/receiver.js';
import type { TestApp } from './utils/test-app.js';
import { newWallet } from './utils/wallet.js';

const BROWSER_TIMEOUT = 180_000;
/** Two days: every fresh period ends within the three days the page warns about. */
const PERIOD_SECONDS = 2 * 24 * 60 * 60;

/**
 * The dashboard's account panels in chromium with an injected wallet: signing out everywhere, deleting a webhook,
 * the "ends soon" banner, the API keys form's words, and an operator renewing for a customer.
 */
describe('dashboard: account panels in a real browser', () => {
  let t: TestApp;
  let api: ReturnType<typeof http>;
  let browser: Browser;
  let receiver: Receiver;
  const operator = newWallet();
  /** Opens the dashboards of each test and closes them after it. */
  let pages: DashboardPages;

  beforeAll(async () => {
    t = await startDashboardApp({
      OPERATOR_ADDRESSES: operator.address,
      SUBSCRIPTION_PERIOD_SECONDS: String(PERIOD_SECONDS),
      // No background sweeps: the events listed are exactly the ones the tests cause.
      WEBHOOK_WORKERS: 'false',
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOW_PRIVATE: 'true',
    });
    api = http(t.url);
    browser = await launchChromium();
    pages = new DashboardPages(browser, `${t.url}/dashboard`);
    receiver = await Receiver.start();
  }, BROWSER_TIMEOUT);
  // No page of a test may have met a script error or a CSP refusal; each is closed even when the test failed.
  afterEach(() => pages?.closeAll());
  afterAll(async () => {
    await browser?.close();
    await receiver?.close();
    await t?.close();
  });

  it(
    'signs out everywhere: every session of the wallet ends, and the page says so',
    async () => {
      const wallet = new TestWallet(newWallet());
      const first = await pages.signedIn(wallet);
      const second = await pages.signedIn(wallet);
      const key = await api.post('/api-keys', {
        token: second.token,
        body: { label: 'made by a session', scopes: ['READ_ONLY'] },
      });
      expect(key.status).toBe(200);

      await first.page.getByRole('button', { name: 'Sign out everywhere' }).click();
      const dialog = first.page.getByRole('dialog', { name: 'Sign out everywhere?' });
      await dialog.waitFor();
      await screenshots(first.page, 'sign-out-everywhere');
      // Changing one's mind ends nothing.
      await dialog.getByRole('button', { name: 'Stay signed in' }).click();
      await dialog.waitFor({ state: 'hidden' });
      expect((await api.get('/auth/session', { token: second.token })).status).toBe(200);

      await first.page.getByRole('button', { name: 'Sign out everywhere' }).click();
      await dialog.getByRole('button', { name: 'Sign out everywhere' }).click();
      await first.page
        .getByText(
          'You signed out everywhere: every session of this wallet has ended, in this browser and in any other. Your API keys still work.',
        )
        .waitFor();
      await first.page.getByRole('button', { name: 'Sign in with Test Wallet' }).waitFor();
      // Without the box ticked, keys are left alone.
      expect((await api.get('/auth/session', { token: key.body.key })).status).toBe(200);
      await expect(first.page.evaluate('document.activeElement?.tagName')).resolves.toBe('H1');
      expect((await api.get('/auth/session', { token: first.token })).status).toBe(401);
      const other = await api.get('/auth/session', { token: second.token });
      expect(other.status).toBe(401);
      expect(other.body.details.code).toBe('token_revoked');
      // The other browser finds out on its next call.
      await second.page.getByRole('tab', { name: 'API keys' }).click();
      await second.page
        .getByText('Your session has expired or was ended. Sign in again to continue.')
        .waitFor();
    },
    BROWSER_TIMEOUT,
  );

  it(
    'signs out everywhere and, when asked, revokes the API keys its sessions made',
    async () => {
      const { page, token } = await pages.signedIn();
      const made = await api.post('/api-keys', {
        token,
        body: { label: 'made by a session', scopes: ['READ_ONLY'] },
      });
      expect(made.status).toBe(200);

      await page.getByRole('button', { name: 'Sign out everywhere' }).click();
      const dialog = page.getByRole('dialog', { name: 'Sign out everywhere?' });
      await dialog.getByRole('checkbox', { name: /Also revoke the API keys made while signed in/ }).check();
      await screenshots(page, 'sign-out-everywhere-keys');
      await dialog.getByRole('button', { name: 'Sign out everywhere' }).click();
      await page.getByText(/1 API key made while signed in was revoked\.$/).waitFor();
      await screenshots(page, 'signed-out-everywhere');
      const refused = await api.get('/auth/session', { token: made.body.key });
      expect(refused.status).toBe(401);
      expect(refused.body.details.code).toBe('api_key_revoked');
    },
    BROWSER_TIMEOUT,
  );

  it(
    'creates keys that expire, shows when, and draws each key’s requests of the last 30 days',
    async () => {
      const { wallet, page, token } = await pages.signedIn();
      await page.getByRole('tab', { name: 'API keys' }).click();

      // In 30 days, from the form.
      await page.getByLabel('Label').fill('monthly report');
      await page.getByLabel('Expires').selectOption({ label: 'In 30 days' });
      await page.getByRole('button', { name: 'Create key' }).click();
      const key = await page.getByRole('textbox', { name: 'API key "monthly report"' }).inputValue();
      await page.getByRole('button', { name: 'I have stored it' }).click();
      const [listed] = (await api.get('/api-keys/list', { token })).body;
      const lifetime = new Date(listed.expiresAt).getTime() - new Date(listed.createdAt).getTime();
      expect(Math.round(lifetime / 86_400_000)).toBe(30);
      const row = page.getByRole('row', { name: /monthly report/ });
      await expect(row.getByTestId('key-expiry').textContent()).resolves.toBe('expires in 30 days');

      // On a date: the form says what is missing until one is picked.
      await page.getByLabel('Label').fill('until a date');
      await page.getByLabel('Expires').selectOption({ label: 'On a date…' });
      await page.getByText('Pick the day the key stops working.').waitFor();
      const inTenDays = new Date(Date.now() + 10 * 86_400_000);
      const day = `${inTenDays.getFullYear()}-${String(inTenDays.getMonth() + 1).padStart(2, '0')}-${String(inTenDays.getDate()).padStart(2, '0')}`;
      await page.getByLabel('Stops working after').fill(day);
      await page.getByRole('button', { name: 'Create key' }).click();
      await page.getByRole('button', { name: 'I have stored it' }).click();
      await expect(
        page
          .getByRole('row', { name: /until a date/ })
          .getByTestId('key-expiry')
          .textContent(),
      ).resolves.toBe('expires in 10 days');

      // A key made to expire in a moment reads "Expired" once it is refused, with nothing left to revoke.
      const brief = await api.post('/api-keys', {
        token,
        body: { label: 'brief', scopes: ['READ_ONLY'], expiresAt: new Date(Date.now() + 1500).toISOString() },
      });
      expect(brief.status).toBe(200);
      await until(
        async () =>
          (await api.get('/auth/session', { token: brief.body.key })).body?.details?.code ===
          'api_key_expired',
        10_000,
        'the brief key to expire',
      );

      // Usage: three requests with the 30-day key, then Refresh.
      for (let count = 0; count < 3; count++) {
        expect(
          (await api.get(`/subscriptions/status?address=${wallet.account.address}`, { token: key })).status,
        ).toBe(200);
      }
      await page.getByRole('button', { name: 'Refresh' }).click();
      const briefRow = page.getByRole('row', { name: /brief/ });
      await briefRow.getByText('Expired').waitFor();
      expect(await briefRow.getByRole('button', { name: /Revoke/ }).count()).toBe(0);
      await row.getByTestId('usage-total').filter({ hasText: '3 requests in 30 days' }).waitFor();
      const usage = await api.get(`/api-keys/${listed.id}/usage`, { token });
      expect(usage.body.days).toHaveLength(30);
      expect(
        usage.body.days.reduce((sum: number, entry: { requests: number }) => sum + entry.requests, 0),
      ).toBe(3);
      // 30 bars, today's (the rightmost) the only one with requests; the numbers in words for screen readers.
      const bars = row.getByTestId('usage-chart').locator('rect');
      await expect(bars.count()).resolves.toBe(30);
      await expect(bars.nth(29).getAttribute('class')).resolves.toBe('bar');
      await expect(bars.nth(0).getAttribute('class')).resolves.toBe('bar bar-idle');
      await expect(
        row.locator('.sr-only').filter({ hasText: 'in the last 30 days' }).textContent(),
      ).resolves.toMatch(/^3 requests in the last 30 days; the busiest day was .+ with 3 requests\.$/);
      await row.getByText(/^Last used/).waitFor();
      await screenshots(page, 'api-keys-expiry-usage');
    },
    BROWSER_TIMEOUT,
  );

  it(
    'deletes a webhook after a confirmation',
    async () => {
      const { page, token } = await pages.signedIn();
      const saved = await api.post('/webhooks', { token, body: { url: receiver.url } });
      expect(saved.status).toBe(200);

      await page.getByRole('tab', { name: 'Webhooks' }).click();
      const remove = page.getByRole('button', { name: `Delete webhook ${receiver.url}` });
      await remove.click();
      const dialog = page.getByRole('dialog', { name: 'Delete this webhook?' });
      await dialog.waitFor();
      await screenshots(page, 'webhook-delete');
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'hidden' });
      expect((await api.get('/webhooks', { token })).body).toHaveLength(1);

      await remove.click();
      await dialog.getByRole('button', { name: 'Delete webhook' }).click();
      await page.getByText(`Deleted the webhook to ${receiver.url}.`).waitFor();
      expect(await page.locator(`[data-webhook-id="${saved.body.id}"]`).count()).toBe(0);
      await page.getByText('No webhooks yet.').waitFor();
      expect((await api.get('/webhooks', { token })).body).toEqual([]);
    },
    BROWSER_TIMEOUT,
  );

  it(
    'warns when the paid period ends within three days, and renewing from the warning clears it',
    async () => {
      const { wallet, page, token } = await pages.signedIn();
      // Not subscribed: nothing ends.
      await page.getByRole('button', { name: 'Subscribe' }).waitFor();
      expect(await page.getByTestId('ends-soon').count()).toBe(0);

      await page.getByRole('button', { name: 'Subscribe' }).click();
      const banner = page.getByTestId('ends-soon');
      await expect(banner.locator('strong').textContent()).resolves.toBe('Ends in 2 days — renew');
      await screenshots(page, 'subscription-ends-soon');
      await banner.getByRole('button', { name: 'Renew now' }).click();
      await page.getByText(/^Renewed: paid until/).waitFor();
      // Four days left: no warning.
      expect(await banner.count()).toBe(0);
      const status = await api.get(`/subscriptions/status?address=${wallet.account.address}`, { token });
      const left = new Date(status.body.currentPeriodEnd).getTime() - Date.now();
      expect(left).toBeGreaterThan(3 * 24 * 60 * 60 * 1000);
    },
    BROWSER_TIMEOUT,
  );

  it(
    'says why a key cannot be created yet, and stops offering a key once it is revoked',
    async () => {
      const { page } = await pages.signedIn();
      await page.getByRole('tab', { name: 'API keys' }).click();
      await page.getByLabel('Label').fill('nightly export');
      await page.getByRole('checkbox', { name: /READ_ONLY/ }).uncheck();
      await page.getByText('Pick at least one scope.').waitFor();
      await expect(page.getByRole('button', { name: 'Create key' }).isDisabled()).resolves.toBe(true);
      await page.getByRole('checkbox', { name: /READ_ONLY/ }).check();
      await page.getByRole('button', { name: 'Create key' }).click();
      const keyField = page.getByRole('textbox', { name: 'API key "nightly export"' });
      await keyField.waitFor();

      // Revoked while its one-time box is still open: the box goes, it would only offer a dead key.
      await page.getByRole('button', { name: 'Revoke key nightly export' }).click();
      await page
        .getByRole('dialog', { name: 'Revoke this key?' })
        .getByRole('button', { name: 'Revoke key' })
        .click();
      await page
        .getByRole('row', { name: /nightly export/ })
        .getByText('Revoked')
        .waitFor();
      expect(await keyField.count()).toBe(0);
    },
    BROWSER_TIMEOUT,
  );

  it(
    'lists the events newest first, a page at a time, filtered by type, each with its data',
    async () => {
      const { wallet, page, token } = await pages.signedIn();
      const renewed = await api.post('/subscriptions/renew', {
        token,
        body: { address: wallet.account.address },
        headers: { 'Idempotency-Key': `events-${wallet.account.address}` },
      });
      expect(renewed.status).toBe(200);
      for (let index = 1; index <= 22; index++) {
        const key = await api.post('/api-keys', {
          token,
          body: { label: `key ${index}`, scopes: ['READ_ONLY'] },
        });
        expect(key.status).toBe(200);
      }
      const all = await api.get('/events?limit=200', { token });
      expect(all.body).toHaveLength(23);
      const ids = all.body.map((event: { id: string }) => event.id);

      await page.getByRole('tab', { name: 'Events' }).click();
      const table = page.getByRole('table', { name: 'Events' });
      const rows = table.locator('tr[data-event-id]');
      await rows.first().waitFor();
      // Newest first, one page of 20, then the rest after "Load more".
      await expect(
        rows.evaluateAll((found) => found.map((row) => row.getAttribute('data-event-id'))),
      ).resolves.toEqual(ids.slice(0, 20));
      await expect(rows.first().textContent()).resolves.toContain('“key 22”');
      await page.getByRole('button', { name: 'Load more' }).click();
      await rows.nth(22).waitFor();
      await expect(
        rows.evaluateAll((found) => found.map((row) => row.getAttribute('data-event-id'))),
      ).resolves.toEqual(ids);
      expect(await page.getByRole('button', { name: 'Load more' }).count()).toBe(0);

      await page.getByLabel('Event type').selectOption({ label: 'Subscription renewed' });
      // The filtered list replaces the full one: wait for it, then check it is the one renewal.
      await rows.nth(1).waitFor({ state: 'detached' });
      await rows.first().waitFor();
      await expect(rows.count()).resolves.toBe(1);
      await expect(rows.first().getAttribute('data-event-id')).resolves.toBe(ids[22]);
      await rows
        .first()
        .getByRole('button', { name: /^Show the data of subscription.renewed/ })
        .click();
      const hide = rows.first().getByRole('button', { name: /^Hide the data of subscription.renewed/ });
      await expect(hide.getAttribute('aria-expanded')).resolves.toBe('true');
      const data = page.getByLabel('Data of subscription.renewed', { exact: true });
      expect(JSON.parse((await data.textContent()) ?? '')).toEqual(all.body[22].data);
      await screenshots(page, 'events');
    },
    BROWSER_TIMEOUT,
  );

  it(
    'lets an operator see that a customer’s period ends soon and renew it for them',
    async () => {
      const customer = newWallet();
      const own = await pages.signedIn(new TestWallet(customer));
      await own.page.getByRole('button', { name: 'Subscribe' }).click();
      await own.page.getByTestId('ends-soon').waitFor();
      await own.context.close();

      const { page, token } = await pages.signedIn(new TestWallet(operator));
      await page.getByRole('tab', { name: 'Operators' }).click();
      await page.getByLabel('Wallet address').fill(customer.address);
      await page.getByRole('button', { name: 'Look up' }).click();
      const banner = page.getByTestId('ends-soon');
      await expect(banner.locator('strong').textContent()).resolves.toBe('Ends in 2 days — renew');
      await page
        .getByRole('table', { name: /History of 0x/ })
        .getByText('Renewed')
        .waitFor();
      await screenshots(page, 'operators-ends-soon');
      await banner.getByRole('button', { name: 'Renew now' }).click();
      await page.getByText(/^Renewed: paid until/).waitFor();
      expect(await banner.count()).toBe(0);
      const history = await api.get(`/subscriptions/history?address=${customer.address}`, { token });
      expect(history.body.map((event: { actor: string }) => event.actor)).toEqual([
        operator.address,
        customer.address,
      ]);
      // The customer's events, below, read again after the renewal: both renewals.
      const events = page.getByRole('table', { name: "Customer's events" });
      const renewals = events.locator('tr[data-event-id]', { hasText: 'Subscription renewed' });
      await renewals.nth(1).waitFor();
      await expect(renewals.count()).resolves.toBe(2);

      // The operator's own Events tab holds every customer's events, each saying whose it is.
      await page.getByRole('tab', { name: 'Events' }).click();
      const newest = page.getByRole('table', { name: 'Events' }).locator('tr[data-event-id]').first();
      await expect(newest.getByRole('cell').nth(2).textContent()).resolves.toMatch(
        new RegExp(`^${customer.address.slice(0, 6)}…${customer.address.slice(-4)}: paid until `),
      );
      await screenshots(page, 'operator-events');
    },
    BROWSER_TIMEOUT,
  );
});
