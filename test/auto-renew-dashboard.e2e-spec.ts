import { join } from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { type Address, createPublicClient, getAddress, http as viemHttp } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { type Mandate, mandateTypedData } from '../src/auto-renew/mandate.js';
import {
  DashboardPages,
  DESKTOP,
  launchChromium,
  PHONE,
  SCREENSHOT_DIR,
  screenshots,
  startDashboardApp,
  TestWallet,
} from './utils/browser.js';
import { erc20PaymentEnv, startTestChain, type TestChain, type TestToken } from './utils/evm.js';
import { http } from './utils/http.js';
import { until } from './utils/receiver.js';
import { ScriptedChargeExecutor } from './utils/scripted-charge-executor.js';
import type { TestApp } from './utils/test-app.js';
import { login, newWallet } from './utils/wallet.js';
import { CHARGER_ARTIFACT } from './utils/charger-chain.js';

const BROWSER_TIMEOUT = 240_000;
/** A sweep round (5 s) and the charge on a busy machine's in-process chain. */
const WAIT = 120_000;
const DAY = 86_400;

/** `section` alone at 1280 px and at 375 px, beside the full-page screenshots (which check the width at 375 px). */
async function sectionScreenshots(page: Page, section: Locator, name: string): Promise<void> {
  await section.screenshot({ path: join(SCREENSHOT_DIR, `${name}-section-desktop.png`) });
  await page.setViewportSize(PHONE);
  await section.screenshot({ path: join(SCREENSHOT_DIR, `${name}-section-375.png`) });
  await page.setViewportSize(DESKTOP);
  await screenshots(page, name);
}

const statusOf = async (url: string, token: string): Promise<Record<string, any>> => {
  const answer = await http(url).get('/subscriptions/status', { token });
  expect(answer.status).toBe(200);
  return answer.body as Record<string, any>;
};

describe('dashboard: automatic renewal under free', () => {
  let t: TestApp;
  let browser: Browser;
  let pages: DashboardPages;
  const operator = newWallet();

  beforeAll(async () => {
    t = await startDashboardApp({ OPERATOR_ADDRESSES: operator.address });
    browser = await launchChromium();
    pages = new DashboardPages(browser, `${t.url}/dashboard`);
    const { token } = await login(t.url, operator);
    const created = await http(t.url).post('/plans', {
      token,
      body: {
        id: 'starter',
        name: 'Starter',
        periodSeconds: 30 * DAY,
        pricePerPeriod: '0',
        trialSeconds: 2 * DAY,
      },
    });
    expect(created.status).toBe(200);
  }, BROWSER_TIMEOUT);
  afterEach(() => pages?.closeAll());
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it(
    'turns on with one click, shows the next charge, and turns off',
    async () => {
      const { page, token } = await pages.signedIn();
      const section = page.getByTestId('auto-renew');
      // Not subscribed: nothing to continue yet.
      await section.getByText(/^Subscribe first/).waitFor();
      expect(await section.getByRole('button', { name: 'Renew automatically' }).count()).toBe(0);

      await page.getByTestId('plan-default').getByRole('button', { name: 'Subscribe', exact: true }).click();
      await page.getByText(/^Subscribed to Default: until /).waitFor();
      await section.getByRole('spinbutton', { name: 'Periods' }).fill('6');
      await section.getByRole('button', { name: 'Renew automatically' }).click();
      await page.getByText(/^Automatic renewal is on: the next charge is on /).waitFor();

      const on = await statusOf(t.url, token);
      const end = Date.parse(on.currentPeriodEnd as string);
      // Charged AUTO_RENEW_LEAD_SECONDS (300 s) before the period end, for the 6 periods chosen.
      expect(on.autoRenew).toEqual({
        enabled: true,
        nextChargeAt: new Date(end - 300_000).toISOString(),
        amount: '0',
        token: null,
        endsAt: new Date(Math.floor(end / 1000) * 1000 + 6 * 30 * DAY * 1000).toISOString(),
        failure: null,
      });
      await expect(section.getByTestId('next-charge').locator('time').getAttribute('datetime')).resolves.toBe(
        on.autoRenew.nextChargeAt,
      );
      await expect(section.getByTestId('charge-amount').textContent()).resolves.toBe(
        'No payment (free) each period',
      );
      await sectionScreenshots(page, section, 'auto-renew-free');

      await section.getByRole('button', { name: 'Turn off automatic renewal' }).click();
      await page.getByText(/^Automatic renewal is off: the subscription ends on /).waitFor();
      expect((await statusOf(t.url, token)).autoRenew.enabled).toBe(false);
      await section.getByRole('button', { name: 'Renew automatically' }).waitFor();
      expect(await section.getByTestId('next-charge').count()).toBe(0);
    },
    BROWSER_TIMEOUT,
  );

  it(
    'a trial ending within three days is announced, and no longer once it renews itself',
    async () => {
      const { page, token } = await pages.signedIn();
      await page
        .getByTestId('plan-starter')
        .getByRole('button', { name: 'Start the 2-day free trial' })
        .click();
      await page.getByText(/^Your Starter trial runs until /).waitFor();
      expect(await statusOf(t.url, token)).toMatchObject({ status: 'trialing', active: true });
      const endsSoon = page.getByTestId('ends-soon');
      await expect(endsSoon.locator('strong').textContent()).resolves.toBe('Trial ends in 2 days — renew');

      await page.getByTestId('auto-renew').getByRole('button', { name: 'Renew automatically' }).click();
      await page.getByText(/^Automatic renewal is on/).waitFor();
      expect((await statusOf(t.url, token)).autoRenew.enabled).toBe(true);
      // It renews itself at the trial's end: nothing to warn about.
      expect(await endsSoon.count()).toBe(0);
    },
    BROWSER_TIMEOUT,
  );
});

describe('dashboard: a charge waiting for the chain', () => {
  let t: TestApp;
  let browser: Browser;
  let pages: DashboardPages;
  const executor = new ScriptedChargeExecutor();

  beforeAll(async () => {
    // Periods of 20 s charged 10 s before their end: the hold comes within a sweep round or two.
    t = await startDashboardApp(
      { SUBSCRIPTION_PERIOD_SECONDS: '20', AUTO_RENEW_LEAD_SECONDS: '10' },
      { chargeExecutor: executor },
    );
    browser = await launchChromium();
    pages = new DashboardPages(browser, `${t.url}/dashboard`);
  }, BROWSER_TIMEOUT);
  afterEach(() => pages?.closeAll());
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it(
    'says the payment is on its way, not that it failed, and shows the renewal once it is confirmed',
    async () => {
      const { page, token, wallet } = await pages.signedIn();
      executor.hold(wallet.account.address, { kind: 'pending' });
      expect((await http(t.url).post('/subscriptions/renew', { token, body: {} })).status).toBe(200);
      expect((await http(t.url).post('/subscriptions/auto-renew', { token, body: {} })).status).toBe(200);
      await until(async () => (await statusOf(t.url, token)).status === 'past_due', WAIT, 'the hold');
      const held = await statusOf(t.url, token);
      expect(held.autoRenew.failure).toBeNull();

      await page.getByRole('button', { name: 'Refresh' }).click();
      const pending = page.getByTestId('payment-pending');
      await pending.waitFor();
      await expect(page.getByTestId('subscription-status').textContent()).resolves.toBe('Payment pending');
      await expect(pending.locator('time').getAttribute('datetime')).resolves.toBe(held.graceEndsAt);
      expect(await page.getByTestId('past-due').count()).toBe(0);
      await screenshots(page, 'auto-renew-payment-pending');

      executor.hold(wallet.account.address, null);
      await until(async () => (await statusOf(t.url, token)).status === 'active', WAIT, 'the credit');
      await page.getByRole('button', { name: 'Refresh' }).click();
      // The page reads the status again after the click: wait for it to show, rather than read it at once.
      await page
        .getByTestId('subscription-status')
        .filter({ hasText: /^Active$/ })
        .waitFor();
      expect(await page.getByTestId('payment-pending').count()).toBe(0);
    },
    BROWSER_TIMEOUT,
  );
});

describe('dashboard: automatic renewal under operator', () => {
  let t: TestApp;
  let browser: Browser;
  let pages: DashboardPages;
  const operator = newWallet();

  beforeAll(async () => {
    t = await startDashboardApp({ PAYMENT_GATEWAY: 'operator', OPERATOR_ADDRESSES: operator.address });
    browser = await launchChromium();
    pages = new DashboardPages(browser, `${t.url}/dashboard`);
  }, BROWSER_TIMEOUT);
  afterEach(() => pages?.closeAll());
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it(
    'is not offered: the integrator bills, so the section is not shown',
    async () => {
      const plan = await http(t.url).get('/subscriptions/plan');
      expect(plan.body).toMatchObject({ gateway: 'operator', autoRenew: null });
      const { page, wallet, token } = await pages.signedIn();
      const renewed = await http(t.url).post('/subscriptions/renew', {
        token: (await login(t.url, operator)).token,
        body: { address: wallet.account.address },
      });
      expect(renewed.status).toBe(200);
      await page.getByRole('button', { name: 'Refresh' }).click();
      await page.locator('[data-testid="subscription-status"]', { hasText: 'Active' }).waitFor();
      expect(await page.getByTestId('auto-renew').count()).toBe(0);
      expect(await page.getByRole('button', { name: 'Renew automatically' }).count()).toBe(0);
      // And the service refuses it, as the page implies.
      const refused = await http(t.url).post('/subscriptions/auto-renew', { token, body: {} });
      expect(refused.status).toBe(400);
      expect(refused.body.details.code).toBe('auto_renew_unavailable');
    },
    BROWSER_TIMEOUT,
  );
});

/** 5 tokens of 6 decimals. */
const PRICE = 5_000_000n;
/**
 * Periods of a day and 10 s whose charge is due a day before their end: the first charge of a new subscription is
 * due 10 s after it starts, the next one a day later, out of the test's way.
 */
const PERIOD_SECONDS = DAY + 10;
const LEAD_SECONDS = DAY;

describe('dashboard: automatic renewal under erc20, on the in-process chain', () => {
  const receiver = getAddress(newWallet().address);
  let chain: TestChain;
  let token: TestToken;
  let charger: Address;
  let t: TestApp;
  let browser: Browser;
  let pages: DashboardPages;

  beforeAll(async () => {
    chain = await startTestChain();
    // A token whose approve changes a nonzero allowance only from 0, as USDT's does: the page must cope with it.
    token = await chain.deployToken('Test USD', 'TUSD', 6, { resetFirst: true });
    charger = await chain.deployContract(CHARGER_ARTIFACT);
    const keeperKey = generatePrivateKey();
    await chain.fund(privateKeyToAccount(keeperKey).address);
    // The contract charges a period only from its start on the chain's clock: a period end two days ahead on the
    // service's has begun there (as on a real chain once the period ends).
    await chain.increaseTime(3 * DAY);
    t = await startDashboardApp({
      ...erc20PaymentEnv(chain, token, receiver, PRICE),
      SUBSCRIPTION_PERIOD_SECONDS: String(PERIOD_SECONDS),
      AUTO_RENEW_LEAD_SECONDS: String(LEAD_SECONDS),
      AUTO_RENEW_CHARGER_ADDRESS: charger,
      KEEPER_PRIVATE_KEY: keeperKey,
    });
    browser = await launchChromium();
    pages = new DashboardPages(browser, `${t.url}/dashboard`);
  }, BROWSER_TIMEOUT);
  afterEach(() => pages?.closeAll());
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await chain?.stop();
  });

  /** Signed in with a wallet that holds gas and 10 periods' worth of tokens, and paid its first period. */
  async function subscribed(): Promise<{ page: Page; wallet: TestWallet; token: string; end: string }> {
    const wallet = new TestWallet(newWallet(), chain);
    await chain.fund(wallet.account.address);
    await token.mint(wallet.account.address, 10n * PRICE);
    const dashboard = await pages.signedIn(wallet);
    const txHash = await token.transfer(wallet.account.address, receiver, PRICE);
    const renewed = await http(t.url).post('/subscriptions/renew', {
      token: dashboard.token,
      body: { payment: { txHash } },
    });
    expect(renewed.status).toBe(200);
    // The page learns of it as a person would, by refreshing.
    await dashboard.page.getByRole('button', { name: 'Refresh' }).click();
    await dashboard.page.locator('[data-testid="subscription-status"]', { hasText: 'Active' }).waitFor();
    return {
      page: dashboard.page,
      wallet,
      token: dashboard.token,
      end: renewed.body.currentPeriodEnd as string,
    };
  }

  it(
    'approves the charging contract, signs the mandate with eth_signTypedData_v4, and registers it',
    async () => {
      const { page, wallet, token: session, end } = await subscribed();
      // A period of a day and 10 s, spelled out.
      await page.getByText('5 TUSD every 1 day and 10 seconds').waitFor();
      const paidBefore = await token.balanceOf(receiver);
      const section = page.getByTestId('auto-renew');
      await section
        .getByText(/approves the charging contract for the periods chosen \(60 TUSD in all\)/)
        .waitFor();
      await sectionScreenshots(page, section, 'auto-renew-off');
      await section.getByRole('button', { name: 'Renew automatically' }).click();
      await page.getByText(/^Automatic renewal is on: the next charge is on /).waitFor();

      // The wallet was asked for the approval, then for the typed data of a Mandate for this chain and contract.
      expect(wallet.requests).toEqual(
        expect.arrayContaining(['eth_call', 'eth_sendTransaction', 'eth_signTypedData_v4']),
      );
      expect(wallet.requests.indexOf('eth_sendTransaction')).toBeLessThan(
        wallet.requests.indexOf('eth_signTypedData_v4'),
      );
      const [signed] = wallet.typedData;
      expect(signed).toMatchObject({
        primaryType: 'Mandate',
        domain: {
          name: 'Tollgate Charger',
          version: '1',
          chainId: chain.chainId,
          verifyingContract: charger,
        },
        message: {
          payer: wallet.account.address,
          token: getAddress(token.address),
          payee: receiver,
          amount: PRICE.toString(),
          periodSeconds: String(PERIOD_SECONDS),
          periods: '12',
        },
      });

      const on = await statusOf(t.url, session);
      expect(on.autoRenew).toMatchObject({
        enabled: true,
        amount: PRICE.toString(),
        token: getAddress(token.address),
      });
      // Approved before it was registered: the service read enough allowance for a period.
      expect(on.autoRenew.allowanceShortfall).toBeUndefined();
      await expect(section.getByTestId('charge-amount').textContent()).resolves.toBe('5 TUSD each period');
      expect(await section.getByTestId('allowance-shortfall').count()).toBe(0);
      await sectionScreenshots(page, page.locator('.card').first(), 'auto-renew-erc20');

      // The keeper charges the first period with that allowance: a transfer from the wallet, and a renewal.
      await until(
        async () => (await statusOf(t.url, session)).currentPeriodEnd !== end,
        WAIT,
        'the first automatic charge',
      );
      expect((await statusOf(t.url, session)).currentPeriodEnd).toBe(
        new Date(Date.parse(end) + PERIOD_SECONDS * 1000).toISOString(),
      );
      expect((await token.balanceOf(receiver)) - paidBefore).toBe(PRICE);
      expect(await token.balanceOf(wallet.account.address)).toBe(8n * PRICE);
    },
    BROWSER_TIMEOUT,
  );

  it(
    'revokes the authorization on chain, then turns off; a refused revocation changes nothing and offers a plain turn-off',
    async () => {
      const revoked = (payer: Address, mandateHash: string) =>
        createPublicClient({ transport: viemHttp(chain.rpcUrl) }).readContract({
          address: charger,
          abi: CHARGER_ARTIFACT.abi,
          functionName: 'revoked',
          args: [payer, mandateHash],
        });
      const turnedOn = async () => {
        const { page, wallet, token: session } = await subscribed();
        const section = page.getByTestId('auto-renew');
        await section.getByRole('button', { name: 'Renew automatically' }).click();
        await page.getByText(/^Automatic renewal is on: the next charge is on /).waitFor();
        const { mandateHash } = (await statusOf(t.url, session)).autoRenew as { mandateHash: string };
        expect(mandateHash).toMatch(/^0x[0-9a-f]{64}$/);
        await section.getByTestId('revoke-hint').waitFor();
        const sent = () => wallet.requests.filter((method) => method === 'eth_sendTransaction').length;
        return { page, section, wallet, session, mandateHash, sentBefore: sent(), sent };
      };

      // Revoked on chain by the wallet first (one transaction), then off in the service.
      const done = await turnedOn();
      await sectionScreenshots(done.page, done.section, 'auto-renew-on-revocable');
      await done.section.getByRole('button', { name: 'Turn off automatic renewal' }).click();
      await done.page
        .getByText(
          /^Automatic renewal is off: the subscription ends on .+ The authorization is revoked on chain: nobody can charge it\.$/,
        )
        .waitFor();
      expect((await statusOf(t.url, done.session)).autoRenew.enabled).toBe(false);
      expect(done.sent()).toBe(done.sentBefore + 1);
      expect(await revoked(done.wallet.account.address, done.mandateHash)).toBe(true);

      // A wallet that refuses the revocation changes nothing; the page then offers the plain turn-off.
      const refused = await turnedOn();
      refused.wallet.rejectTransactions = true;
      await refused.section.getByRole('button', { name: 'Turn off automatic renewal' }).click();
      await refused.section
        .getByText(
          'You rejected the revocation request in your wallet. Nothing was changed. Automatic renewal is still on.',
        )
        .waitFor();
      expect((await statusOf(t.url, refused.session)).autoRenew.enabled).toBe(true);
      await sectionScreenshots(refused.page, refused.section, 'auto-renew-revocation-refused');
      await refused.section.getByRole('button', { name: 'Turn off without revoking' }).click();
      await refused.page
        .getByText(/The authorization stays valid on chain until .+; the service no longer charges it\.$/)
        .waitFor();
      expect((await statusOf(t.url, refused.session)).autoRenew.enabled).toBe(false);
      expect(refused.sent()).toBe(refused.sentBefore + 1);
      expect(await revoked(refused.wallet.account.address, refused.mandateHash)).toBe(false);
    },
    BROWSER_TIMEOUT,
  );

  it(
    'sets an allowance below the total to 0 first where the token wants it (USDT), then approves the total',
    async () => {
      const { page, wallet, token: session } = await subscribed();
      // One period approved earlier (a mandate since turned off, say): below the 12 periods this one needs.
      await token.approve(wallet.account.address, charger, PRICE);
      await page.getByTestId('auto-renew').getByRole('button', { name: 'Renew automatically' }).click();
      await page.getByText(/^Automatic renewal is on: the next charge is on /).waitFor();

      // The approval was tried with eth_call, refused by the token, so the wallet sent two approvals: to 0, then
      // the total; then it signed.
      expect(wallet.requests.filter((method) => method === 'eth_sendTransaction')).toHaveLength(2);
      expect(wallet.requests.lastIndexOf('eth_sendTransaction')).toBeLessThan(
        wallet.requests.indexOf('eth_signTypedData_v4'),
      );
      // 12 periods approved; the keeper may already have charged the first of them from the wallet's 9.
      const charged = 9n * PRICE - (await token.balanceOf(wallet.account.address));
      expect((await token.allowance(wallet.account.address, charger)) + charged).toBe(12n * PRICE);
      const on = await statusOf(t.url, session);
      expect(on.autoRenew).toMatchObject({ enabled: true, amount: PRICE.toString() });
      expect(on.autoRenew.allowanceShortfall).toBeUndefined();
    },
    BROWSER_TIMEOUT,
  );

  it(
    'shows a failed charge as past_due with what to do, approves, and tries again until it is paid',
    async () => {
      const { page, wallet, token: session } = await subscribed();
      // A mandate signed without any allowance: the charge fails for it.
      const before = await statusOf(t.url, session);
      const plan = (await http(t.url).get('/subscriptions/plan')).body.autoRenew as Record<string, any>;
      const mandate: Mandate = {
        payer: wallet.account.address,
        token: getAddress(plan.token as string),
        payee: getAddress(plan.payee as string),
        amount: BigInt(plan.amount as string),
        periodSeconds: BigInt(plan.periodSeconds as number),
        start: BigInt(Math.floor(Date.parse(before.currentPeriodEnd as string) / 1000)),
        periods: 3n,
        salt: `0x${'ab'.repeat(32)}`,
      };
      const signature = await wallet.account.signTypedData(
        mandateTypedData(mandate, plan.chainId as number, getAddress(plan.charger as string)),
      );
      const registered = await http(t.url).post('/subscriptions/auto-renew', {
        token: session,
        body: {
          mandate: Object.fromEntries(Object.entries(mandate).map(([key, value]) => [key, String(value)])),
          signature,
        },
      });
      expect(registered.status).toBe(200);
      expect(registered.body.autoRenew.allowanceShortfall).toBe(PRICE.toString());
      await until(async () => (await statusOf(t.url, session)).status === 'past_due', WAIT, 'past_due');

      await page.getByRole('button', { name: 'Refresh' }).click();
      const banner = page.getByTestId('past-due');
      await banner.waitFor();
      await expect(page.getByTestId('subscription-status').textContent()).resolves.toBe('Payment due');
      const pastDue = await statusOf(t.url, session);
      const shown = await banner.getByTestId('past-due-message').textContent();
      // What is wrong, in the service's words; what to do, in the page's (its buttons).
      expect(shown).toBe('Allowance is 0 TUSD, the period costs 5 TUSD.');
      expect(pastDue.autoRenew.failure.message).toMatch(/^allowance is 0 TUSD, the period costs 5 TUSD: /);
      await expect(banner.getByTestId('past-due-advice').textContent()).resolves.toBe(
        'Approve the charges (your wallet asks you to confirm), then try again now.',
      );
      expect(pastDue.autoRenew.failure.message).toContain('allowance is 0 TUSD, the period costs 5 TUSD');
      // The next attempt and the end of the grace (from subscription.payment_failed), each a date.
      await expect(banner.locator('time').first().getAttribute('datetime')).resolves.toBe(
        pastDue.autoRenew.nextChargeAt,
      );
      const [failed] = (await http(t.url).get('/events?type=subscription.payment_failed', { token: session }))
        .body as Array<{ data: { graceEndsAt: string } }>;
      await expect(banner.locator('time').nth(1).getAttribute('datetime')).resolves.toBe(
        failed!.data.graceEndsAt,
      );
      // No "ends soon" banner beside it: the past_due one says what to do.
      expect(await page.getByTestId('ends-soon').count()).toBe(0);
      await sectionScreenshots(page, page.locator('.card').first(), 'auto-renew-past-due');

      // What the message asks: approve; then try again now rather than in an hour.
      await banner.getByRole('button', { name: 'Approve the charges' }).click();
      await page.getByText('Approved: try the charge again now.').waitFor();
      const paidBefore = await token.balanceOf(receiver);
      await banner.getByRole('button', { name: 'Try again now' }).click();
      await page.getByText(/^Paid: the subscription is renewed until /).waitFor({ timeout: WAIT });
      expect(await page.getByTestId('past-due').count()).toBe(0);
      await expect(page.getByTestId('subscription-status').textContent()).resolves.toBe('Active');

      const recovered = await statusOf(t.url, session);
      expect(recovered).toMatchObject({ status: 'active', autoRenew: { enabled: true, failure: null } });
      expect(Date.parse(recovered.currentPeriodEnd as string)).toBe(
        Date.parse(before.currentPeriodEnd as string) + PERIOD_SECONDS * 1000,
      );
      expect((await token.balanceOf(receiver)) - paidBefore).toBe(PRICE);
      const recoveredEvents = await http(t.url).get('/events?type=subscription.recovered', {
        token: session,
      });
      expect(recoveredEvents.body).toHaveLength(1);
    },
    BROWSER_TIMEOUT,
  );
});
