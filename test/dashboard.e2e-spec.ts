import type { Browser } from 'playwright-core';
import { http } from './utils/http.js';
import { Receiver } from './utils/receiver.js';
import {
  DashboardPages,
  launchChromium,
  screenshots,
  sessionToken,
  signIn,
  startDashboardApp,
  TestWallet,
} from './utils/browser.js';
import type { TestApp } from './utils/test-app.js';
import { newWallet } from './utils/wallet.js';

/** A browser flow clicks through many screens, each waiting on the API. */
const BROWSER_TIMEOUT = 180_000;

/**
 * The dashboard in Debian's chromium, driven like a person would: a wallet injected before the page loads signs
 * the login in this process, and every claim the page makes is checked against the API as well.
 */
describe('dashboard in a real browser', () => {
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
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOW_PRIVATE: 'true',
    });
    api = http(t.url);
    browser = await launchChromium();
    pages = new DashboardPages(browser, `${t.url}/dashboard`);
    // The first delivery fails, so the log has one to retry.
    receiver = await Receiver.start((index) => ({ status: index === 0 ? 500 : 200 }));
  }, BROWSER_TIMEOUT);
  // No page of a test may have met a script error or a CSP refusal; each is closed even when the test failed.
  afterEach(() => pages?.closeAll());
  afterAll(async () => {
    await browser?.close();
    await receiver?.close();
    await t?.close();
  });

  it('is served at /dashboard with a strict CSP, and / redirects there', async () => {
    const root = await fetch(`${t.url}/`, { redirect: 'manual' });
    expect(root.status).toBe(302);
    expect(root.headers.get('location')).toBe('/dashboard');
    const page = await fetch(`${t.url}/dashboard`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("style-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    const html = await page.text();
    // Every script is a file from this origin: no inline code for the CSP to allow.
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    const script = /src="(\/dashboard\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    expect(script).toBeDefined();
    const asset = await fetch(`${t.url}${script}`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('cache-control')).toContain('immutable');
    expect((await fetch(`${t.url}/dashboard/assets/missing.js`)).status).toBe(404);
  });

  it(
    'says so when no wallet is installed',
    async () => {
      const { page } = await pages.signedOut();
      await page.getByText('No wallet found.').waitFor();
      expect(await page.getByRole('button', { name: /Sign in with/ }).count()).toBe(0);
      await screenshots(page, 'signin-no-wallet');
    },
    BROWSER_TIMEOUT,
  );

  it(
    'says so when the signature is rejected, and signs in on the next try',
    async () => {
      const wallet = new TestWallet(newWallet());
      wallet.rejectSignatures = true;
      const { context, page } = await pages.signedOut(wallet);
      await page.getByRole('button', { name: 'Sign in with Test Wallet' }).click();
      await page.getByRole('alert').filter({ hasText: 'You rejected the signature request' }).waitFor();
      expect(await context.cookies()).toEqual([]);
      await screenshots(page, 'signin-rejected');

      wallet.rejectSignatures = false;
      await signIn(page);
      expect(wallet.requests).toEqual([
        'eth_requestAccounts',
        'personal_sign',
        'eth_requestAccounts',
        'personal_sign',
      ]);
    },
    BROWSER_TIMEOUT,
  );

  it(
    'signs in, renews, creates, uses and revokes a key, tests a webhook and signs out',
    async () => {
      const wallet = new TestWallet(newWallet());
      const { context, page } = await pages.signedOut(wallet);
      await page.getByRole('button', { name: 'Sign in with Test Wallet' }).waitFor();
      await screenshots(page, 'signin');
      await signIn(page);
      // One h1, and the keyboard starts there rather than on <body> once the sign-in button is gone.
      await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Your account');
      await expect(page.evaluate('document.activeElement?.tagName')).resolves.toBe('H1');
      const token = await sessionToken(page);
      const cookie = (await context.cookies()).find((entry) => entry.name === 'tg_session')!;
      expect(cookie.httpOnly).toBe(true);
      await page.getByTestId('signed-in-address').waitFor();
      expect(await page.getByTestId('signed-in-address').getAttribute('title')).toBe(wallet.account.address);
      // Operators only: this wallet is not one.
      expect(await page.getByRole('tab', { name: 'Operators' }).count()).toBe(0);
      // The tabs follow the WAI-ARIA pattern: arrow keys move between them.
      await page.getByRole('tab', { name: 'Subscription' }).focus();
      await page.keyboard.press('ArrowRight');
      await expect(page.getByRole('tab', { name: 'API keys' }).getAttribute('aria-selected')).resolves.toBe(
        'true',
      );
      await page.keyboard.press('ArrowLeft');
      await expect(
        page.getByRole('tab', { name: 'Subscription' }).getAttribute('aria-selected'),
      ).resolves.toBe('true');

      // Subscription: none, then renewed (the page's POST carries the browser's Origin, so the CSRF check passes).
      const status = page.getByTestId('subscription-status');
      await expect(status.textContent()).resolves.toBe('Not subscribed');
      await page.getByRole('button', { name: 'Subscribe' }).click();
      await page.getByText(/^Renewed: paid until/).waitFor();
      await expect(status.textContent()).resolves.toBe('Active');
      const afterRenew = await api.get(`/subscriptions/status?address=${wallet.account.address}`, { token });
      expect(afterRenew.body).toMatchObject({ status: 'active', active: true });
      await page
        .getByRole('table', { name: /History of your subscription/ })
        .getByText('Renewed')
        .waitFor();

      // Cancel at period end, confirmed in the dialog.
      await page.getByRole('button', { name: 'Cancel at period end' }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Cancel at period end' }).click();
      await page.getByText('Active, ends at period end').waitFor();
      // Said as a request that still runs, not as if it had already ended; no developer jargon on the page.
      await expect(page.getByTestId('cancellation').textContent()).resolves.toMatch(
        /^Requested on .+, runs until .+$/,
      );
      expect(await page.getByText('Canceled at').count()).toBe(0);
      expect(await page.getByText(/Idempotency-Key/).count()).toBe(0);
      // Each dialog is announced with its own title (the two used to share one id).
      await page.getByRole('button', { name: 'Cancel now' }).click();
      await page.getByRole('dialog', { name: 'Cancel right now?' }).waitFor();
      await page.keyboard.press('Escape');
      await page.getByRole('dialog').waitFor({ state: 'hidden' });
      const afterCancel = await api.get(`/subscriptions/status?address=${wallet.account.address}`, { token });
      expect(afterCancel.body).toMatchObject({ status: 'active', cancelAtPeriodEnd: true });
      await screenshots(page, 'subscription');

      // API keys: create one, read it once, use it from here, revoke it, see it refused.
      await page.getByRole('tab', { name: 'API keys' }).click();
      // A disabled button says why.
      const create = page.getByRole('button', { name: 'Create key' });
      await expect(create.isDisabled()).resolves.toBe(true);
      await expect(create.getAttribute('aria-describedby')).resolves.toBeTruthy();
      await page.getByText('Give the key a label first.').waitFor();
      await page.getByLabel('Label').fill('reporting job');
      expect(await page.getByText('Give the key a label first.').count()).toBe(0);
      await page.getByRole('checkbox', { name: /SUBSCRIPTIONS_MANAGE/ }).check();
      await page.getByRole('button', { name: 'Create key' }).click();
      const keyField = page.getByRole('textbox', { name: 'API key "reporting job"' });
      await keyField.waitFor();
      const key = await keyField.inputValue();
      expect(key).toMatch(/^tg_[A-Za-z0-9]{38}$/);
      await page.getByText('It will not be shown again').waitFor();
      await screenshots(page, 'api-key-created');
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: t.url });
      await page.getByRole('button', { name: 'Copy' }).click();
      await page.getByRole('button', { name: 'Copied' }).waitFor();
      await expect(page.evaluate('navigator.clipboard.readText()')).resolves.toBe(key);
      const withKey = await api.get(`/subscriptions/status?address=${wallet.account.address}`, {
        token: key,
      });
      expect(withKey.status).toBe(200);
      expect(withKey.body.status).toBe('active');

      await page.getByRole('button', { name: 'I have stored it' }).click();
      expect(await keyField.count()).toBe(0);
      const row = page.getByRole('row', { name: /reporting job/ });
      await expect(row.textContent()).resolves.toContain(key.slice(0, 10));
      await expect(row.textContent()).resolves.toContain(key.slice(-4));
      // Keyboard: Escape closes the confirmation and nothing is revoked; then confirm for real.
      await page.getByRole('button', { name: 'Revoke key reporting job' }).click();
      await page.getByRole('dialog').waitFor();
      await page.keyboard.press('Escape');
      await page.getByRole('dialog').waitFor({ state: 'hidden' });
      expect((await api.get('/api-keys/list', { token })).body[0].revoked).toBe(false);
      await page.getByRole('button', { name: 'Revoke key reporting job' }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Revoke key' }).click();
      await row.getByText('Revoked').waitFor();
      const revoked = await api.get(`/subscriptions/status?address=${wallet.account.address}`, {
        token: key,
      });
      expect(revoked.status).toBe(401);
      await screenshots(page, 'api-keys');

      // Webhooks: an API error is shown as its text, then a loopback receiver gets the test event.
      await page.getByRole('tab', { name: 'Webhooks' }).click();
      await page.getByLabel('Endpoint URL').fill('ftp://example.com/hook');
      await page.getByRole('button', { name: 'Add webhook' }).click();
      const refused = await api.post('/webhooks', { token, body: { url: 'ftp://example.com/hook' } });
      expect(refused.status).toBe(400);
      await page.getByRole('alert').filter({ hasText: refused.body.error }).waitFor();

      await page.getByLabel('Endpoint URL').fill(receiver.url);
      await page.getByLabel('All events, including ones added later').uncheck();
      await page.getByRole('checkbox', { name: 'webhook.test' }).check();
      await page.getByRole('checkbox', { name: 'subscription.renewed' }).check();
      await page.getByRole('button', { name: 'Add webhook' }).click();
      const secret = await page.getByRole('textbox', { name: 'Signing secret' }).inputValue();
      expect(secret).toMatch(/^whsec_/);
      const [saved] = (await api.get('/webhooks', { token })).body;
      expect(saved).toMatchObject({
        url: receiver.url,
        events: ['subscription.renewed', 'webhook.test'],
        enabled: true,
      });
      await page.getByRole('button', { name: 'I have stored it' }).click();
      // Nothing has failed: no "Failing since" row to read.
      expect(await page.getByText('Failing since').count()).toBe(0);

      // The receiver refuses the first delivery: it can be retried, and once delivered it offers no retry.
      await page.getByRole('button', { name: 'Send test' }).click();
      await page.getByTestId('delivery-result').filter({ hasText: 'Failed' }).waitFor();
      await expect(page.getByTestId('delivery-result').textContent()).resolves.toContain('HTTP 500');
      const [received] = await receiver.waitFor(1);
      expect(JSON.parse(received!.body).type).toBe('webhook.test');
      await page.getByRole('button', { name: 'Deliveries' }).click();
      const log = page.getByRole('table', { name: `Deliveries to ${receiver.url}` });
      await log.getByText('HTTP 500').waitFor();
      await page.getByRole('button', { name: 'Retry' }).click();
      await receiver.waitFor(2);
      await log.getByText('HTTP 200').waitFor();
      await expect(log.getByRole('button', { name: 'Retry' }).count()).resolves.toBe(0);
      await log.getByText('Delivered on a later attempt').waitFor();
      // The test's "Failed" no longer stands once the retry went through.
      expect(await page.getByTestId('delivery-result').count()).toBe(0);
      await screenshots(page, 'webhooks');

      // Disable, then sign out: the session is revoked on the server, not only forgotten by the browser.
      await page.getByRole('button', { name: 'Disable' }).click();
      await page.getByRole('button', { name: 'Enable' }).waitFor();
      expect((await api.get('/webhooks', { token })).body[0].enabled).toBe(false);
      await page.getByRole('button', { name: 'Sign out', exact: true }).click();
      await page.getByText('You signed out.').waitFor();
      expect((await api.get('/auth/session', { token })).status).toBe(401);
    },
    BROWSER_TIMEOUT,
  );

  it(
    'goes back to sign-in with a message when the session ends',
    async () => {
      const { page, token } = await pages.signedIn();
      // The panel's first calls done: had one of them met the ended session, the page would already be on sign-in.
      await page.getByRole('button', { name: 'Subscribe' }).waitFor();
      await page.waitForLoadState('networkidle');
      // The session ends outside this page (expiry or a sign-out elsewhere): the next call answers 401.
      expect((await api.post('/auth/logout', { token })).status).toBe(200);
      await page.getByRole('tab', { name: 'API keys' }).click();
      await page.getByText('Your session has expired or was ended. Sign in again to continue.').waitFor();
      await page.getByRole('button', { name: 'Sign in with Test Wallet' }).waitFor();
      await screenshots(page, 'signin-session-ended');
    },
    BROWSER_TIMEOUT,
  );

  it(
    'lets an operator look up and manage another address',
    async () => {
      const customer = newWallet();
      const { page, token } = await pages.signedIn(new TestWallet(operator));
      await page.getByRole('tab', { name: 'Operators' }).click();

      await page.getByLabel('Wallet address').fill('0x1234');
      await page.getByRole('button', { name: 'Look up' }).click();
      await page.getByRole('alert').waitFor();
      expect(await page.getByRole('alert').textContent()).not.toBe('');

      await page.getByLabel('Wallet address').fill(customer.address.toLowerCase());
      await page.getByRole('button', { name: 'Look up' }).click();
      const status = page.getByTestId('subscription-status');
      await expect(status.textContent()).resolves.toBe('Not subscribed');
      await page.getByRole('button', { name: 'Subscribe' }).click();
      await page.getByText(/^Renewed: paid until/).waitFor();
      await expect(status.textContent()).resolves.toBe('Active');
      const read = await api.get(`/subscriptions/status?address=${customer.address}`, { token });
      expect(read.body).toMatchObject({ address: customer.address, status: 'active' });
      expect(
        (await api.get(`/subscriptions/history?address=${customer.address}`, { token })).body[0],
      ).toMatchObject({
        type: 'renewed',
        actor: operator.address,
      });
      await screenshots(page, 'operators');

      await page.getByRole('button', { name: 'Cancel now' }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Cancel now' }).click();
      await expect(
        page.getByTestId('subscription-status').filter({ hasText: 'Canceled' }).textContent(),
      ).resolves.toBe('Canceled');
      const canceled = await api.get(`/subscriptions/status?address=${customer.address}`, { token });
      expect(canceled.body.status).toBe('canceled');
    },
    BROWSER_TIMEOUT,
  );
});
