import { getAddress } from 'viem';
import type { Browser } from 'playwright-core';
import {
  DashboardPages,
  launchChromium,
  screenshots,
  sessionToken,
  startDashboardApp,
  TestWallet,
} from './utils/browser.js';
import { erc20PaymentEnv, startTestChain, type TestChain, type TestToken } from './utils/evm.js';
import { http } from './utils/http.js';
import type { TestApp } from './utils/test-app.js';
import { login, newWallet } from './utils/wallet.js';

/** 5 tokens of 6 decimals. */
const PRICE = 5_000_000n;
const BROWSER_TIMEOUT = 180_000;

/**
 * The dashboard's renew under PAYMENT_GATEWAY=erc20, on the in-process chain: the page asks the injected wallet to
 * send the token transfer, waits for its receipt, and renews with the transaction hash.
 */
describe('dashboard: paying for a period with an ERC-20 transfer', () => {
  let chain: TestChain;
  let token: TestToken;
  let t: TestApp;
  let browser: Browser;
  const receiver = getAddress(newWallet().address);
  const operator = newWallet();
  /** Opens the dashboards of each test and closes them after it. */
  let pages: DashboardPages;

  beforeAll(async () => {
    chain = await startTestChain();
    token = await chain.deployToken('Test USD', 'TUSD', 6);
    t = await startDashboardApp({
      ...erc20PaymentEnv(chain, token, receiver, PRICE),
      OPERATOR_ADDRESSES: operator.address,
    });
    browser = await launchChromium();
    pages = new DashboardPages(browser, `${t.url}/dashboard`);
  }, BROWSER_TIMEOUT);
  // No page of a test may have met a script error or a CSP refusal; each is closed even when the test failed.
  afterEach(() => pages?.closeAll());
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await chain?.stop();
  });

  /** A wallet with gas money and `tokens` of the payment token. */
  async function fundedWallet(tokens: bigint): Promise<TestWallet> {
    const wallet = new TestWallet(newWallet(), chain);
    const funded = await fetch(chain.rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'anvil_setBalance',
        params: [wallet.account.address, `0x${(10n ** 18n).toString(16)}`],
      }),
    });
    expect(((await funded.json()) as { error?: unknown }).error).toBeUndefined();
    await token.mint(wallet.account.address, tokens);
    return wallet;
  }

  it(
    'sends the transfer from the wallet, then renews with its hash',
    async () => {
      const wallet = await fundedWallet(2n * PRICE);
      const dashboard = await pages.signedOut(wallet);
      const { page } = dashboard;
      await page.getByRole('button', { name: 'Sign in with Test Wallet' }).click();
      const subscribe = page.getByRole('button', { name: 'Subscribe: pay 5 TUSD' });
      await subscribe.waitFor();
      await page.getByText(/A period costs 5 TUSD/).waitFor();

      // The user declines the transfer in the wallet: nothing is paid, nothing renewed.
      wallet.rejectTransactions = true;
      await subscribe.click();
      await page
        .getByRole('alert')
        .filter({ hasText: 'You rejected the payment request in your wallet' })
        .waitFor();
      expect(await token.balanceOf(receiver)).toBe(0n);

      wallet.rejectTransactions = false;
      await subscribe.click();
      await page.getByText(/^Renewed: paid until/).waitFor();
      await expect(page.getByTestId('subscription-status').textContent()).resolves.toBe('Active');
      expect(await token.balanceOf(receiver)).toBe(PRICE);
      expect(await token.balanceOf(wallet.account.address)).toBe(PRICE);
      expect(wallet.requests).toContain('eth_sendTransaction');

      const status = await http(t.url).get(`/subscriptions/status?address=${wallet.account.address}`, {
        token: await sessionToken(page),
      });
      expect(status.body).toMatchObject({ status: 'active', active: true });
      // Credited, so the page no longer holds a payment waiting to be credited.
      expect(await page.evaluate(`localStorage.length`)).toBe(0);
      await screenshots(page, 'subscription-erc20');
    },
    BROWSER_TIMEOUT,
  );

  it(
    "pays the chosen plan's price, shown in whole tokens from the token's decimals and symbol",
    async () => {
      const { token: operatorToken } = await login(t.url, operator);
      const created = await http(t.url).post('/plans', {
        token: operatorToken,
        body: {
          id: 'plus',
          name: 'Plus',
          periodSeconds: 7 * 86_400,
          // 12.345678 TUSD: every one of the 6 decimals shown, none rounded.
          pricePerPeriod: '12345678',
          features: ['export.csv'],
        },
      });
      expect(created.status).toBe(200);
      const wallet = await fundedWallet(20_000_000n);
      const { page } = await pages.signedIn(wallet);
      const plus = page.getByTestId('plan-plus');
      await expect(plus.locator('.plan-price').textContent()).resolves.toBe('12.345678 TUSD every 7 days');
      await expect(page.getByTestId('plan-default').locator('.plan-price').textContent()).resolves.toBe(
        '5 TUSD every 30 days',
      );
      const before = await token.balanceOf(receiver);

      await plus.getByRole('button', { name: 'Subscribe: pay 12.345678 TUSD' }).click();
      await page.getByText(/^Subscribed to Plus: until /).waitFor();
      expect((await token.balanceOf(receiver)) - before).toBe(12_345_678n);
      const status = await http(t.url).get('/subscriptions/status', { token: await sessionToken(page) });
      expect(status.body).toMatchObject({ status: 'active', plan: { id: 'plus' }, features: ['export.csv'] });
      // Renewing the plan the subscription is on pays that plan's price, not the default's.
      await page.getByRole('button', { name: 'Renew for another period: pay 12.345678 TUSD' }).waitFor();
      await screenshots(page, 'plans-erc20');
    },
    BROWSER_TIMEOUT,
  );
});
