import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { createWalletClient, defineChain, type Hex, http as viemHttp, type TypedDataDefinition } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import { freePort } from '../../src/common/net/free-port.js';
import { startTestApp, type TestApp, type TestAppOptions } from './test-app.js';
import { newWallet } from './wallet.js';
import { SESSION_COOKIE } from '../../src/auth/session-cookie.js';

/** Debian's chromium (`apt-get install chromium`): the tests never download a browser. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Where the browser tests leave their screenshots: SCREENSHOT_DIR, else test-output/dashboard (git-ignored). */
export const SCREENSHOT_DIR = process.env.SCREENSHOT_DIR ?? join(process.cwd(), 'test-output', 'dashboard');

export const DESKTOP = { width: 1280, height: 860 };
export const PHONE = { width: 375, height: 812 };

export function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(`No chromium at ${CHROMIUM_PATH}: apt-get install chromium, or set CHROMIUM_PATH`);
  }
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/**
 * The service for a browser test, with `env` on top: on a port chosen before it starts, so the page signs in under
 * its own origin (AUTH_DOMAIN, AUTH_URI), and with a session cookie the browser keeps over plain http.
 */
export async function startDashboardApp(
  env: Record<string, string> = {},
  options: Omit<TestAppOptions, 'env' | 'port'> = {},
): Promise<TestApp> {
  const port = await freePort();
  return startTestApp({
    ...options,
    port,
    env: {
      AUTH_URI: `http://127.0.0.1:${port}`,
      AUTH_DOMAIN: `127.0.0.1:${port}`,
      COOKIE_SECURE: 'false',
      ...env,
    },
  });
}

/** A JSON-RPC node the wallet sends transactions to and reads receipts from (the in-process test chain). */
export interface WalletChain {
  rpcUrl: string;
  chainId: number;
  /** Mines blocks after a transaction is sent, so it gets its receipt and confirmations. */
  mine(blocks: number): Promise<void>;
}

async function rpc(
  url: string,
  method: string,
  params: unknown[],
): Promise<{ result?: unknown; error?: { code: number; message: string } }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return (await response.json()) as { result?: unknown; error?: { code: number; message: string } };
}

/**
 * The test process's side of the injected wallet: a viem account, whether the "user" rejects signatures (messages
 * and EIP-712 typed data alike), and the chain its transactions go to (signed here, sent to the test chain's node)
 * and its reads (`eth_call`) are answered from.
 */
export class TestWallet {
  rejectSignatures = false;
  rejectTransactions = false;
  readonly requests: string[] = [];
  /** The typed data of every `eth_signTypedData_v4` the page asked for, as the wallet showed it. */
  readonly typedData: TypedDataDefinition[] = [];

  constructor(
    readonly account: PrivateKeyAccount,
    private readonly chain?: WalletChain,
  ) {}

  async handle(
    method: string,
    params: unknown[],
  ): Promise<{ result?: unknown; error?: { code: number; message: string } }> {
    this.requests.push(method);
    switch (method) {
      case 'eth_requestAccounts':
      case 'eth_accounts':
        return { result: [this.account.address] };
      case 'eth_chainId':
        return { result: `0x${(this.chain?.chainId ?? 1).toString(16)}` };
      case 'wallet_switchEthereumChain': {
        const [{ chainId }] = params as [{ chainId: string }];
        return Number(chainId) === (this.chain?.chainId ?? 1)
          ? { result: null }
          : { error: { code: 4902, message: 'Unrecognized chain' } };
      }
      case 'eth_sendTransaction': {
        if (!this.chain) return { error: { code: 4200, message: 'No chain configured' } };
        if (this.rejectTransactions) return { error: { code: 4001, message: 'User rejected the request.' } };
        const [transaction] = params as [{ to: Hex; data: Hex; value?: Hex }];
        const chain = defineChain({
          id: this.chain.chainId,
          name: 'test',
          nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
          rpcUrls: { default: { http: [this.chain.rpcUrl] } },
        });
        const client = createWalletClient({
          account: this.account,
          chain,
          transport: viemHttp(this.chain.rpcUrl),
        });
        const hash = await client.sendTransaction({
          to: transaction.to,
          data: transaction.data,
          value: BigInt(transaction.value ?? 0),
          // EIP-1559 fees of our own: the test chain's node cannot build a receipt for a legacy transaction.
          maxFeePerGas: 10n ** 10n,
          maxPriorityFeePerGas: 10n ** 9n,
        });
        await this.chain.mine(1);
        return { result: hash };
      }
      case 'eth_getTransactionReceipt':
      case 'eth_blockNumber':
      case 'eth_call':
        if (!this.chain) return { error: { code: 4200, message: 'No chain configured' } };
        return rpc(this.chain.rpcUrl, method, params);
      case 'personal_sign': {
        if (this.rejectSignatures) return { error: { code: 4001, message: 'User rejected the request.' } };
        const [data, address] = params as [`0x${string}`, string];
        if (address.toLowerCase() !== this.account.address.toLowerCase()) {
          return { error: { code: 4100, message: 'Unknown account' } };
        }
        return { result: await this.account.signMessage({ message: { raw: data } }) };
      }
      case 'eth_signTypedData_v4': {
        if (this.rejectSignatures) return { error: { code: 4001, message: 'User rejected the request.' } };
        // The address, then the typed data as a JSON string (EIP-712 `types` with `EIP712Domain`, integers as
        // decimal strings or numbers), as wallets take it.
        const [address, json] = params as [string, string];
        if (address.toLowerCase() !== this.account.address.toLowerCase()) {
          return { error: { code: 4100, message: 'Unknown account' } };
        }
        const typedData = JSON.parse(json) as TypedDataDefinition;
        this.typedData.push(typedData);
        // A wallet refuses to sign for a chain other than the one it is on (the domain would not verify there).
        const domainChain = typedData.domain?.chainId;
        if (domainChain !== undefined && Number(domainChain) !== (this.chain?.chainId ?? 1)) {
          return {
            error: { code: -32602, message: `The domain's chainId ${domainChain} is not the wallet's chain` },
          };
        }
        return { result: await this.account.signTypedData(typedData) };
      }
      default:
        return { error: { code: 4200, message: `Unsupported method ${method}` } };
    }
  }
}

/** A page in a browser context of its own, and the script errors and CSP refusals it met. */
export interface Dashboard {
  context: BrowserContext;
  page: Page;
  consoleErrors: string[];
}

/** A fresh browser context (its own cookies) on `url`, with `wallet` injected before the page loads, or none. */
async function openDashboard(browser: Browser, url: string, wallet?: TestWallet): Promise<Dashboard> {
  const context = await browser.newContext({ viewport: DESKTOP });
  if (wallet) {
    await context.exposeFunction('__testWalletRequest', (method: string, params: unknown[]) =>
      wallet.handle(method, params),
    );
    await context.addInitScript({ path: join(process.cwd(), 'test', 'utils', 'injected-wallet.js') });
  }
  const page = await context.newPage();
  const consoleErrors: string[] = [];
  // Script errors and CSP refusals; an API answer of 4xx is logged by the browser too, and is not one.
  page.on('console', (message) => {
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) {
      consoleErrors.push(message.text());
    }
  });
  page.on('pageerror', (error) => consoleErrors.push(error.message));
  await page.goto(url);
  return { context, page, consoleErrors };
}

/**
 * The dashboards one spec opens at `url`, each kept until `closeAll()` (the spec's afterEach) closes it, then fails
 * on any script error or CSP refusal it met: closed first, so a test that already failed leaves no page open.
 */
export class DashboardPages {
  private readonly opened: Dashboard[] = [];

  constructor(
    private readonly browser: Browser,
    private readonly url: string,
  ) {}

  /** The dashboard on its sign-in screen, with `wallet` injected or none. */
  async signedOut(wallet?: TestWallet): Promise<Dashboard> {
    const dashboard = await openDashboard(this.browser, this.url, wallet);
    this.opened.push(dashboard);
    return dashboard;
  }

  /** The dashboard signed in with `wallet` (a new one unless given), with its session token. */
  async signedIn(
    wallet = new TestWallet(newWallet()),
  ): Promise<Dashboard & { wallet: TestWallet; token: string }> {
    const dashboard = await this.signedOut(wallet);
    await signIn(dashboard.page);
    return { ...dashboard, wallet, token: await sessionToken(dashboard.page) };
  }

  async closeAll(): Promise<void> {
    const dashboards = this.opened.splice(0);
    await Promise.all(dashboards.map(({ context }) => context.close()));
    const errors = dashboards.flatMap(({ consoleErrors }) => consoleErrors);
    if (errors.length > 0) {
      throw new Error(`The dashboard met script errors or CSP refusals:\n${errors.join('\n')}`);
    }
  }
}

/**
 * Screenshots of the current view at desktop width and at 375 px: the full page, or only the window when a modal
 * dialog is open (its backdrop covers the window, not the whole page).
 */
export async function screenshots(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const fullPage = (await page.locator('dialog[open]').count()) === 0;
  await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}-desktop.png`), fullPage });
  await page.setViewportSize(PHONE);
  await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}-375.png`), fullPage });
  // Nothing may stick out sideways at phone width, off the screen or out of its card (visually hidden text and
  // table headers aside).
  const overflowing = await page.evaluate(`(() => {
    const width = document.documentElement.clientWidth;
    const outside = (element) => {
      const right = element.getBoundingClientRect().right;
      const card = element.parentElement?.closest('.card');
      return right > width + 1 || (card !== null && card !== undefined && right > card.getBoundingClientRect().right + 1);
    };
    return [...document.querySelectorAll('body *')]
      .filter((element) => !element.closest('.sr-only, thead') && element.checkVisibility())
      .filter(outside)
      .map((element) => element.tagName.toLowerCase() + (element.className ? '.' + element.className : ''));
  })()`);
  if ((overflowing as string[]).length > 0) {
    throw new Error(
      `${name} at 375 px: wider than the screen or its card: ${(overflowing as string[]).slice(0, 5).join(', ')}`,
    );
  }
  await page.setViewportSize(DESKTOP);
}

/** The session token the dashboard holds, read from its cookie. */
export async function sessionToken(page: Page): Promise<string> {
  const cookie = (await page.context().cookies()).find((entry) => entry.name === SESSION_COOKIE);
  if (!cookie) throw new Error(`no ${SESSION_COOKIE} cookie in the browser`);
  return cookie.value;
}

/** Signs in with the injected test wallet and waits for the dashboard's first tab. */
export async function signIn(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Sign in with Test Wallet' }).click();
  await page.getByRole('tab', { name: 'Subscription' }).waitFor();
}
