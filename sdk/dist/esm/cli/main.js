#!/usr/bin/env node
/// <reference types="node" />
// `tollgate`: the API from a terminal, for developers without a wallet extension. Plain node:util parseArgs.
import { parseArgs } from 'node:util';
import { createTollgateClient } from '../client.js';
import { sessionToken } from '../credentials.js';
import { TollgateConnectionError, TollgateError, unwrap } from '../errors.js';
import { signIn } from '../sign-in.js';
import { listen } from './listen.js';
import { plans, PLANS_OPTIONS, PLANS_USAGE } from './plans.js';
import { readPrivateKey } from './private-key.js';
import { credentialFor, loadSession, saveSession, serviceUrl, sessionFile, UsageError } from './settings.js';
const USAGE = `usage: tollgate <command> [options]

  login [--key-file <path>]                 sign a wallet in (key from the file, TOLLGATE_PRIVATE_KEY or a
                                            hidden prompt; never on the command line) and store the session
  token                                     print the stored session token (for curl: TOKEN=$(tollgate token))
  status [address]                          the subscription of the wallet (or of an address)
  renew [--address <a>] [--tx-hash <0x…>]   pay for one more period (erc20 gateway: the transfer's hash)
  cancel [--address <a>] [--immediate]      cancel at the period's end (or now)
  keys create --label <l> --scope <s>…      create an API key (READ_ONLY, SUBSCRIPTIONS_MANAGE, FULL)
  keys list | keys revoke <id>
  webhooks add <url> [--events <e,…>]       configure a receiver; prints its secret once
  webhooks list | webhooks test [id] | webhooks deliveries <id>
  events [--events <e,…>] [--since <iso>] [--limit <n>] [--address <a>]
                                            events, newest first (the ids the webhooks carry): reconcile
                                            after an outage of your receiver
  listen --forward-to <url> [--events <e,…>] [--port <n>]
                                            receive events on loopback, verify and forward them
${PLANS_USAGE}

options: --url <base URL> (default: TOLLGATE_URL from the environment or .env, else http://localhost:3000)
         --token-file <path> (default: ~/.config/tollgate/session.json)
credentials: TOLLGATE_API_KEY (environment or .env) if set, else the session stored by login.`;
const OPTIONS = {
    url: { type: 'string' },
    'token-file': { type: 'string' },
    'key-file': { type: 'string' },
    address: { type: 'string' },
    'tx-hash': { type: 'string' },
    immediate: { type: 'boolean' },
    label: { type: 'string' },
    scope: { type: 'string', multiple: true },
    events: { type: 'string', multiple: true },
    'forward-to': { type: 'string' },
    since: { type: 'string' },
    limit: { type: 'string' },
    port: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
    ...PLANS_OPTIONS,
};
function print(line) {
    process.stdout.write(`${line}\n`);
}
function log(line) {
    process.stderr.write(`${line}\n`);
}
/** `key: value` lines, nested objects as JSON. */
function printObject(object) {
    const entries = Object.entries(object);
    const width = Math.max(...entries.map(([key]) => key.length));
    for (const [key, value] of entries) {
        const text = value !== null && typeof value === 'object' ? JSON.stringify(value) : String(value);
        print(`${`${key}:`.padEnd(width + 2)}${text}`);
    }
}
/** Comma-separated or repeated: `--scope READ_ONLY,FULL` or `--scope READ_ONLY --scope FULL`. */
function list(values) {
    return values
        ?.flatMap((value) => value.split(','))
        .map((value) => value.trim())
        .filter(Boolean);
}
function positional(positionals, index, name) {
    const value = positionals[index];
    if (value === undefined)
        throw new UsageError(`missing <${name}>\n\n${USAGE}`);
    return value;
}
async function run(argv) {
    if (argv.some((arg) => arg === '--key' || arg.startsWith('--key='))) {
        throw new UsageError('a private key is never read from the command line (shell history, `ps`, npm): use --key-file, ' +
            'TOLLGATE_PRIVATE_KEY or the prompt');
    }
    const { values, positionals } = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true });
    const [command, sub] = positionals;
    if (values.help || command === undefined || command === 'help')
        return print(USAGE);
    const url = serviceUrl(values.url);
    const file = sessionFile(values['token-file']);
    const anonymous = () => createTollgateClient({ baseUrl: url });
    const authed = () => createTollgateClient({ baseUrl: url, credential: credentialFor(url, file) });
    const address = values.address === undefined ? {} : { address: values.address };
    switch (command) {
        case 'login': {
            const { privateKeyToAccount } = await import('viem/accounts');
            const account = privateKeyToAccount(await readPrivateKey(values['key-file']));
            const session = await signIn(anonymous(), account);
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
            return printObject(await unwrap(authed().POST('/subscriptions/renew', { body: { ...address, ...payment } })));
        }
        case 'cancel': {
            const body = { ...address, immediate: values.immediate ?? false };
            return printObject(await unwrap(authed().POST('/subscriptions/cancel', { body })));
        }
        case 'keys':
            return keys(authed(), sub, positionals, values.label, list(values.scope));
        case 'webhooks':
            return webhooks(authed(), sub, positionals, list(values.events));
        case 'events': {
            const types = list(values.events);
            const query = {
                ...address,
                ...(types === undefined ? {} : { type: types.filter((type) => type !== '*') }),
                ...(values.since === undefined ? {} : { since: values.since }),
            };
            const most = values.limit === undefined ? Infinity : Number(values.limit);
            let shown = 0;
            for await (const event of authed().paginate('/events', { params: { query } })) {
                if (shown++ >= most)
                    break;
                print(`${event.createdAt}  ${event.type}  ${event.id}  ${JSON.stringify(event.data)}`);
            }
            return;
        }
        case 'plans':
            return plans({ anonymous, authed, print }, sub, positionals, values);
        case 'listen': {
            const forwardTo = values['forward-to'];
            if (forwardTo === undefined)
                throw new UsageError(`listen needs --forward-to <url>\n\n${USAGE}`);
            return listen(authed(), {
                forwardTo,
                events: list(values.events),
                port: values.port === undefined ? 0 : Number(values.port),
                print,
                log,
            });
        }
        default:
            throw new UsageError(`unknown command: ${command}\n\n${USAGE}`);
    }
}
async function keys(client, sub, positionals, label, scopes) {
    switch (sub) {
        case 'create': {
            if (label === undefined || scopes === undefined) {
                throw new UsageError('keys create needs --label <label> and --scope <scope> (READ_ONLY, SUBSCRIPTIONS_MANAGE, FULL)');
            }
            const created = await unwrap(client.POST('/api-keys', { body: { label, scopes: scopes } }));
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
            throw new UsageError(`keys create|list|revoke\n\n${USAGE}`);
    }
}
async function webhooks(client, sub, positionals, events) {
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
            for (const delivery of tested.deliveries)
                printObject(delivery);
            return;
        }
        case 'deliveries': {
            const webhookId = positional(positionals, 2, 'webhook id');
            const query = { webhookId };
            for await (const attempt of client.paginate('/webhooks/deliveries', { params: { query } })) {
                const outcome = attempt.statusCode ?? attempt.error ?? '-';
                print(`${attempt.attemptedAt}  ${attempt.eventType}  ${attempt.eventId}  ${attempt.deliveryStatus}  ${outcome}`);
            }
            return;
        }
        default:
            throw new UsageError(`webhooks add|list|test|deliveries\n\n${USAGE}`);
    }
}
// `tollgate events | head`: a reader that stops early is not an error.
process.stdout.on('error', (error) => {
    if (error.code !== 'EPIPE')
        throw error;
    process.exit(0);
});
try {
    await run(process.argv.slice(2));
}
catch (error) {
    if (error instanceof UsageError || error.code?.startsWith('ERR_PARSE_ARGS')) {
        log(error.message);
        process.exitCode = 2;
    }
    else if (error instanceof TollgateConnectionError) {
        log(`${error.message} (is the service running? set TOLLGATE_URL or --url)`);
        process.exitCode = 1;
    }
    else if (error instanceof TollgateError) {
        const id = error.requestId === undefined ? '' : ` (request ${error.requestId})`;
        log(`refused: ${error.status} ${error.code}: ${error.message}${id}`);
        process.exitCode = 1;
    }
    else {
        throw error;
    }
}
