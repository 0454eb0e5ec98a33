#!/usr/bin/env node
/// <reference types="node" />
// `tollgate`: the API from a terminal, for developers without a wallet extension. Plain node:util parseArgs.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { changePlan } from '../change-plan.js';
import { createTollgateClient, type TollgateClient } from '../client.js';
import { sessionToken } from '../credentials.js';
import { TollgateConnectionError, TollgateError, unwrap } from '../errors.js';
import type { components } from '../schema.js';
import { DEFAULT_SIGN_IN_CHAIN_ID, signIn } from '../sign-in.js';
import { SignInMessageError } from '../siwe.js';
import { autoRenew, AUTO_RENEW_OPTIONS, AUTO_RENEW_USAGE } from './auto-renew.js';
import { ChainError, optionalViem } from './chain.js';
import { entitlements, ENTITLEMENTS_USAGE } from './entitlements.js';
import { listen } from './listen.js';
import { plans, PLANS_OPTIONS, PLANS_USAGE } from './plans.js';
import { PRIVATE_KEY_OUT_OF_RANGE, readPrivateKey } from './private-key.js';
import { renew } from './renew.js';
import {
  credentialFor,
  loadSession,
  saveSession,
  serviceUrl,
  sessionFile,
  setting,
  UsageError,
} from './settings.js';

type Schemas = components['schemas'];
type Scope = Schemas['CreateApiKeyDto']['scopes'][number];
type EventType = NonNullable<Schemas['SaveWebhookDto']['events']>[number];

/** One command of the CLI: its synopsis, and what `tollgate <command> --help` says beyond it. */
interface Command {
  usage: string;
  summary: string;
  help: string;
}

const COMMANDS: Record<string, Command> = {
  login: {
    usage: 'login [--key-file <path>] [--chain-id <n>] [--origin <url>]',
    summary: 'sign a wallet in and store the session',
    help: `Signs the wallet of a private key in and stores the session for the service's URL. The key comes from
--key-file, else TOLLGATE_PRIVATE_KEY (environment or .env), else a hidden prompt; never from the command line.
Before signing, the service's sign-in message is checked: only an EIP-4361 message for the service's own origin,
this wallet and the expected chain is signed; anything else is refused and nothing is signed.

  --key-file <path>   the private key (0x and 64 hex digits)
  --chain-id <n>      the chain the message must name (the service's AUTH_CHAIN_ID); default TOLLGATE_CHAIN_ID,
                      else 1
  --origin <url>      the origin the message must name, when the service signs in under another public address
                      than --url (its AUTH_DOMAIN and AUTH_URI); command line only, never from .env
Needs viem (an optional peer dependency of @tollgate/client): npm install viem`,
  },
  token: {
    usage: 'token',
    summary: 'print the stored session token',
    help: 'Prints the session token login stored for the URL, for curl: TOKEN=$(tollgate token).',
  },
  status: {
    usage: 'status [address]',
    summary: 'the subscription of the wallet (or of an address)',
    help: 'Prints the subscription of the signed-in wallet, or of an address (operators; also --address <a>).',
  },
  renew: {
    usage: 'renew [--address <a>] [--plan <id>] [--tx-hash <0x…>] [--wait]',
    summary: 'pay for one more period',
    help: `Renews for one more period. Under the erc20 gateway, --tx-hash is the hash of the payment's transfer.
A wallet's first subscription to a plan with a trial starts the trial (status trialing) and needs no --tx-hash;
one paid during the trial starts its period at the trial's end.

  --address <a>    the subscription to renew (operators)
  --plan <id>      the plan to subscribe to (see plans list); default: the subscription's own
  --tx-hash <0x…>  the transfer paying for the renewal (erc20 gateway)
  --wait           while the transfer is not mined or lacks confirmations, wait (printing progress) and ask again`,
  },
  'change-plan': {
    usage: 'change-plan <plan> [--address <a>]',
    summary: 'move to another plan (a dearer one at once, another at the period end)',
    help: `Changes the plan of the active subscription. A plan dearer per second takes effect at once, the time left
converted at the two prices per second (rounded down to whole seconds); another is scheduled for the end of the
period (pendingPlan); the current plan drops a scheduled change.

  --address <a>    the subscription to change (operators)`,
  },
  'auto-renew': {
    usage:
      'auto-renew enable [--periods <n>] [--key-file <path>] [--rpc-url <url>] | status | retry | disable',
    summary: 'renew automatically at each period end; its state; retry; stop',
    help: AUTO_RENEW_USAGE,
  },
  cancel: {
    usage: 'cancel [--address <a>] [--immediate]',
    summary: "cancel at the period's end (or now)",
    help: 'Cancels the subscription at the end of its period, or at once with --immediate.',
  },
  keys: {
    usage: 'keys create --label <l> --scope <s>… | keys list | keys revoke <id>',
    summary: 'create, list and revoke API keys',
    help: `keys create --label <l> --scope <s>…   create an API key (scopes: READ_ONLY, SUBSCRIPTIONS_MANAGE, FULL;
                                       comma-separated or repeated); the key is printed once
keys list                              every key of the wallet
keys revoke <id>                       revoke a key`,
  },
  webhooks: {
    usage: 'webhooks add <url> [--events <e,…>] | list | test [id] | deliveries <id>',
    summary: 'configure webhook receivers',
    help: `webhooks add <url> [--events <e,…>]   configure a receiver; prints its secret once
webhooks list                          every webhook of the wallet
webhooks test [id]                     send a webhook.test event (to every webhook, or to one)
webhooks deliveries <id>               the delivery attempts of a webhook`,
  },
  events: {
    usage: 'events [--events <e,…>] [--since <iso>] [--limit <n>] [--address <a>]',
    summary: 'events, newest first',
    help: `Events, newest first, with the ids the webhooks carry: reconcile after an outage of your receiver.

  --events <e,…>   only these types     --since <iso>   only from this time on
  --limit <n>      at most n events     --address <a>   another wallet's (operators)`,
  },
  plans: {
    usage: 'plans list [--archived] | plans create <id> … | plans archive <id>',
    summary: 'the plans offered; their management (operators)',
    help: PLANS_USAGE,
  },
  entitlements: {
    usage: 'entitlements <address> [feature]',
    summary: 'the features a wallet may use now',
    help: ENTITLEMENTS_USAGE,
  },
  listen: {
    usage: 'listen --forward-to <url> [--events <e,…>] [--port <n>] [--secret-file <path>]',
    summary: 'receive events on loopback, verify and forward them',
    help: `Starts a receiver on 127.0.0.1, registers it as a webhook, and forwards each delivery whose signature
checks out, raw body and headers unchanged, to --forward-to (an http or https URL; a host other than this machine
is named in a warning, since deliveries then leave it). Ctrl-C deletes the webhook.

  --forward-to <url>     where deliveries go
  --events <e,…>         the event types to receive (default: all)
  --port <n>             the receiver's port (default: any free one)
  --secret-file <path>   write the webhook's signing secret there (mode 600) for your endpoint to verify with;
                         the terminal only shows its start`,
  },
};

const COMMON = `options: --url <base URL> (default: TOLLGATE_URL from the environment or .env, else http://localhost:3000)
         --token-file <path> (default: ~/.config/tollgate/session.json)
         --help, -h (also after a command: tollgate login --help) · --version
credentials: TOLLGATE_API_KEY (environment or .env) if set, else the session stored by login.`;

/** The command names' column: the longest and two spaces. */
const NAME_WIDTH = Math.max(...Object.keys(COMMANDS).map((name) => name.length)) + 2;

const USAGE = `usage: tollgate <command> [options]

${Object.entries(COMMANDS)
  .map(([name, command]) => `  ${name.padEnd(NAME_WIDTH)}${command.summary}`)
  .join('\n')}

${COMMON}`;

function commandHelp(name: string): string {
  const command = COMMANDS[name]!;
  return `usage: tollgate ${command.usage}\n\n${command.help}\n\n${COMMON}`;
}

/** The version of this package, from its package.json (two levels above dist/esm/cli). */
function version(): string {
  const manifest = new URL('../../../package.json', import.meta.url);
  return (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version;
}

const OPTIONS = {
  url: { type: 'string' },
  'token-file': { type: 'string' },
  'key-file': { type: 'string' },
  'chain-id': { type: 'string' },
  origin: { type: 'string' },
  address: { type: 'string' },
  'tx-hash': { type: 'string' },
  plan: { type: 'string' },
  wait: { type: 'boolean' },
  immediate: { type: 'boolean' },
  label: { type: 'string' },
  scope: { type: 'string', multiple: true },
  events: { type: 'string', multiple: true },
  'forward-to': { type: 'string' },
  'secret-file': { type: 'string' },
  since: { type: 'string' },
  limit: { type: 'string' },
  port: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean' },
  ...PLANS_OPTIONS,
  ...AUTO_RENEW_OPTIONS,
} as const;

function print(line: string): void {
  process.stdout.write(`${line}\n`);
}

function log(line: string): void {
  process.stderr.write(`${line}\n`);
}

/** `key: value` lines, nested objects as JSON. */
function printObject(object: object): void {
  const entries = Object.entries(object);
  const width = Math.max(...entries.map(([key]) => key.length));
  for (const [key, value] of entries) {
    const text = value !== null && typeof value === 'object' ? JSON.stringify(value) : String(value);
    print(`${`${key}:`.padEnd(width + 2)}${text}`);
  }
}

/** Comma-separated or repeated: `--scope READ_ONLY,FULL` or `--scope READ_ONLY --scope FULL`. */
function list(values: string[] | undefined): string[] | undefined {
  return values
    ?.flatMap((value) => value.split(','))
    .map((value) => value.trim())
    .filter(Boolean);
}

function positional(positionals: string[], index: number, name: string): string {
  const value = positionals[index];
  if (value === undefined) throw new UsageError(`missing <${name}>\n\n${commandHelp(positionals[0]!)}`);
  return value;
}

async function run(argv: string[]): Promise<void> {
  if (argv.some((arg) => arg === '--key' || arg.startsWith('--key='))) {
    throw new UsageError(
      'a private key is never read from the command line (shell history, `ps`, npm): use --key-file, ' +
        'TOLLGATE_PRIVATE_KEY or the prompt',
    );
  }
  const { values, positionals } = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true });
  const [command, sub] = positionals;
  if (values.version) return print(version());
  if (command === 'help' && sub !== undefined && sub in COMMANDS) return print(commandHelp(sub));
  if (command === undefined || command === 'help') return print(USAGE);
  if (!(command in COMMANDS)) throw new UsageError(`unknown command: ${command}\n\n${USAGE}`);
  if (values.help) return print(commandHelp(command));

  const url = serviceUrl(values.url);
  const file = sessionFile(values['token-file']);
  const anonymous = (): TollgateClient => createTollgateClient({ baseUrl: url });
  const authed = (): TollgateClient =>
    createTollgateClient({ baseUrl: url, credential: credentialFor(url, file) });
  const address = values.address === undefined ? {} : { address: values.address };

  switch (command) {
    case 'login': {
      const chainId = chainIdOption(values['chain-id'] ?? setting('TOLLGATE_CHAIN_ID'));
      const origin = values.origin === undefined ? undefined : originOption(values.origin);
      // viem first: no prompt for a key that could not be used.
      const accounts = await viemAccounts('login');
      const account = accountOf(accounts, await readPrivateKey(values['key-file']));
      // Said before anything is signed: a mistyped --url or a .env's TOLLGATE_URL shows here.
      log(
        `signing in to ${url}${origin === undefined ? '' : ` (as ${origin})`} as ${account.address} on chain ` +
          `${chainId}`,
      );
      const session = await signIn(anonymous(), account, {
        chainId,
        ...(origin === undefined ? {} : { origin }),
      });
      const expiresAt = session.expiresAt.toISOString();
      saveSession(file, { url, address: session.address, token: session.token, expiresAt });
      // Checks the stored token the way every other command will use it.
      sessionToken(session.token, expiresAt);
      print(`signed in to ${url} as ${session.address} until ${expiresAt}`);
      return log(`session stored in ${file}`);
    }
    case 'token':
      return print(loadSession(url, file).token);
    case 'status': {
      const target = positionals[1] ?? values.address;
      const query = target === undefined ? {} : { address: target };
      return printObject(await unwrap(authed().GET('/subscriptions/status', { params: { query } })));
    }
    case 'renew': {
      const payment = values['tx-hash'] === undefined ? {} : { payment: { txHash: values['tx-hash'] } };
      const plan = values.plan === undefined ? {} : { plan: values.plan };
      const body = { ...address, ...plan, ...payment };
      const wait = values.wait === true && values['tx-hash'] !== undefined;
      return printObject(await renew(authed(), body, wait ? { log } : undefined));
    }
    case 'change-plan':
      return printObject(await changePlan(authed(), positional(positionals, 1, 'plan'), address));
    case 'auto-renew':
      return autoRenew(
        {
          authed,
          account: async () =>
            accountOf(await viemAccounts(`auto-renew ${sub}`), await readPrivateKey(values['key-file'])),
          rpcUrl: values['rpc-url'] ?? setting('TOLLGATE_RPC_URL'),
          address: values.address,
          show: printObject,
          log,
        },
        sub,
        values,
      );
    case 'cancel': {
      const body = { ...address, immediate: values.immediate ?? false };
      return printObject(await unwrap(authed().POST('/subscriptions/cancel', { body })));
    }
    case 'keys':
      return keys(authed(), sub, positionals, values.label, list(values.scope));
    case 'webhooks':
      return webhooks(authed(), sub, positionals, list(values.events) as EventType[] | undefined);
    case 'events': {
      const types = list(values.events) as EventType[] | undefined;
      const query = {
        ...address,
        ...(types === undefined ? {} : { type: types.filter((type) => type !== '*') }),
        ...(values.since === undefined ? {} : { since: values.since }),
      };
      const most = values.limit === undefined ? Infinity : Number(values.limit);
      let shown = 0;
      for await (const event of authed().paginate('/events', { params: { query } })) {
        if (shown++ >= most) break;
        print(`${event.createdAt}  ${event.type}  ${event.id}  ${JSON.stringify(event.data)}`);
      }
      return;
    }
    case 'plans':
      return plans({ anonymous, authed, print }, sub, positionals, values);
    case 'entitlements':
      return entitlements(authed(), positionals, print);
    case 'listen': {
      const forwardTo = values['forward-to'];
      if (forwardTo === undefined)
        throw new UsageError(`listen needs --forward-to <url>\n\n${commandHelp('listen')}`);
      return listen(authed(), {
        forwardTo,
        secretFile: values['secret-file'],
        events: list(values.events) as EventType[] | undefined,
        port: values.port === undefined ? 0 : Number(values.port),
        print,
        log,
      });
    }
    default:
      throw new UsageError(`unknown command: ${command}\n\n${USAGE}`);
  }
}

function chainIdOption(value: string | undefined): number {
  if (value === undefined) return DEFAULT_SIGN_IN_CHAIN_ID;
  const chainId = Number(value);
  if (!/^[1-9][0-9]*$/.test(value) || !Number.isSafeInteger(chainId)) {
    throw new UsageError(
      `--chain-id (or TOLLGATE_CHAIN_ID) must be a positive integer, not ${JSON.stringify(value)}`,
    );
  }
  return chainId;
}

function originOption(value: string): string {
  try {
    const origin = new URL(value);
    if (origin.protocol === 'http:' || origin.protocol === 'https:') return origin.origin;
  } catch {
    // Refused below, as any other value that is no http(s) URL.
  }
  throw new UsageError(`--origin must be an http or https URL, such as https://app.example.com`);
}

type ViemAccounts = typeof import('viem/accounts');

/** viem's accounts module: needed by the commands that sign with a private key only. */
function viemAccounts(command: string): Promise<ViemAccounts> {
  return optionalViem(command, () => import('viem/accounts'));
}

function accountOf(
  accounts: ViemAccounts,
  privateKey: `0x${string}`,
): ReturnType<ViemAccounts['privateKeyToAccount']> {
  try {
    return accounts.privateKeyToAccount(privateKey);
  } catch {
    // viem's error quotes the key: never print it.
    throw new UsageError(PRIVATE_KEY_OUT_OF_RANGE);
  }
}

async function keys(
  client: TollgateClient,
  sub: string | undefined,
  positionals: string[],
  label: string | undefined,
  scopes: string[] | undefined,
): Promise<void> {
  switch (sub) {
    case 'create': {
      if (label === undefined || scopes === undefined) {
        throw new UsageError(
          'keys create needs --label <label> and --scope <scope> (READ_ONLY, SUBSCRIPTIONS_MANAGE, FULL)',
        );
      }
      const created = await unwrap(client.POST('/api-keys', { body: { label, scopes: scopes as Scope[] } }));
      printObject({
        id: created.id,
        label: created.label,
        scopes: created.scopes.join(','),
        key: created.key,
      });
      return log('the key is shown once: store it now');
    }
    case 'list':
      for await (const key of client.paginate('/api-keys/list')) {
        const state = key.revoked ? 'revoked' : 'active';
        print(`${key.id}  ${key.prefix}  ${state}  ${key.scopes.join(',')}  ${key.label}`);
      }
      return;
    case 'revoke': {
      const id = positional(positionals, 2, 'id');
      const revoked = await unwrap(client.POST('/api-keys/revoke', { body: { id } }));
      return printObject(revoked);
    }
    default:
      throw new UsageError(`keys create|list|revoke\n\n${commandHelp('keys')}`);
  }
}

async function webhooks(
  client: TollgateClient,
  sub: string | undefined,
  positionals: string[],
  events: EventType[] | undefined,
): Promise<void> {
  switch (sub) {
    case 'add': {
      const url = positional(positionals, 2, 'url');
      const saved = await unwrap(client.POST('/webhooks', { body: { url, ...(events ? { events } : {}) } }));
      printObject({ id: saved.id, url: saved.url, events: saved.events.join(','), secret: saved.secret });
      return log('the secret is shown once: verify deliveries with it');
    }
    case 'list':
      for (const webhook of await unwrap(client.GET('/webhooks'))) {
        const state = webhook.enabled ? 'enabled' : `disabled (${webhook.disabledReason ?? 'by you'})`;
        print(`${webhook.id}  ${state}  ${webhook.events.join(',')}  ${webhook.url}`);
      }
      return;
    case 'test': {
      const id = positionals[2];
      const tested = await unwrap(client.POST('/webhooks/test', { body: id === undefined ? {} : { id } }));
      for (const delivery of tested.deliveries) printObject(delivery);
      return;
    }
    case 'deliveries': {
      const webhookId = positional(positionals, 2, 'webhook id');
      const query = { webhookId };
      for await (const attempt of client.paginate('/webhooks/deliveries', { params: { query } })) {
        const outcome = attempt.statusCode ?? attempt.error ?? '-';
        print(
          `${attempt.attemptedAt}  ${attempt.eventType}  ${attempt.eventId}  ${attempt.deliveryStatus}  ${outcome}`,
        );
      }
      return;
    }
    default:
      throw new UsageError(`webhooks add|list|test|deliveries\n\n${commandHelp('webhooks')}`);
  }
}

// `tollgate events | head`: a reader that stops early is not an error.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
  process.exit(0);
});

try {
  await run(process.argv.slice(2));
} catch (error) {
  if (error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
    log((error as Error).message);
    process.exitCode = 2;
  } else if (error instanceof ChainError) {
    log(`chain: ${error.message}`);
    process.exitCode = 1;
  } else if (error instanceof SignInMessageError) {
    log(`refused to sign: ${error.message}`);
    process.exitCode = 1;
  } else if (error instanceof TollgateConnectionError) {
    log(`${error.message} (is the service running? set TOLLGATE_URL or --url)`);
    process.exitCode = 1;
  } else if (error instanceof TollgateError) {
    const id = error.requestId === undefined ? '' : ` (request ${error.requestId})`;
    log(`refused: ${error.status} ${error.code}: ${error.message}${id}`);
    process.exitCode = 1;
  } else {
    throw error;
  }
}
