import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { getAddress, isAddress } from 'viem';
import { weakSecretReason } from './secret-strength.js';
import {
  address,
  boolean,
  directory,
  integer,
  list,
  oneOf,
  optional,
  positiveUint256,
  privateKey,
  privateKeyFile,
  secret,
  setting,
  text,
  trustedProxies,
  url,
  type Setting,
} from './setting.js';

const ORIGIN = /^https?:\/\/[^/\s]+$/;
/**
 * The EIP-4361 domains viem's createSiweMessage accepts (a DNS name with a dot, IPv4 or localhost, optional port):
 * refused at start rather than at the first sign-in. siwe-message.spec.ts builds a message for each form.
 */
const SIWE_DOMAIN =
  /^(?:(?:[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?\.)+(?:[a-zA-Z]{2,63}|xn--[a-zA-Z0-9-]{0,58}[a-zA-Z0-9])|(?:(?:25[0-5]|2[0-4]\d|[01]?\d\d?)\.){3}(?:25[0-5]|2[0-4]\d|[01]?\d\d?)|localhost)(?::\d{1,5})?$/i;

export const PAYMENT_GATEWAYS = ['free', 'operator', 'erc20'] as const;
export type PaymentGatewayName = (typeof PAYMENT_GATEWAYS)[number];

/**
 * Every setting of the service, each described once. `AppConfig` (its type and its values), the validation at start
 * and docs/configuration.md's table are all derived from this list.
 *
 * To add a setting, add one entry here: the AppConfig key, then `setting({ env, parse, default, doc })` with a
 * parser from `./setting.ts` (or a new one there). Then run `npm run docs:config` to rewrite docs/configuration.md's table; a
 * unit test fails while the table is stale. The order here is the table's order.
 */
/** A `postgres://` (or `postgresql://`) connection URL, refused naming `name` otherwise. */
const postgresUrl = (name: string) =>
  text({ pattern: /^postgres(ql)?:\/\/.+/, message: `${name} must be a postgres:// connection URL` });

export const SETTINGS = {
  port: setting({
    env: 'PORT',
    parse: integer({ min: 0, max: 65535 }),
    default: 3000,
    doc: 'Port the HTTP server listens on.',
  }),
  host: setting({
    env: 'HOST',
    parse: text(),
    default: '0.0.0.0',
    doc: 'Address the HTTP server listens on.',
  }),
  trustProxy: setting<boolean | readonly string[]>({
    env: 'TRUST_PROXY',
    parse: trustedProxies(),
    default: false,
    doc: 'Proxies whose `X-Forwarded-*` headers are believed (https, client address): `false`, `true` (any peer) or comma-separated IPs, CIDRs, `loopback`.',
  }),
  // Connection limits (src/common/http/connection-limits.ts): a client that stalls holds a socket, and a process
  // has a bounded number of them.
  httpRequestTimeoutMs: setting({
    env: 'HTTP_REQUEST_TIMEOUT_MS',
    parse: integer({ min: 100, max: 600_000 }),
    default: 30_000,
    doc: 'Time to receive a whole request, headers and body; past it, 408 `request_timeout` and the connection is closed.',
  }),
  httpHeadersTimeoutMs: setting({
    env: 'HTTP_HEADERS_TIMEOUT_MS',
    parse: integer({ min: 100, max: 600_000 }),
    default: 10_000,
    doc: "Time to receive a request's headers (at most `HTTP_REQUEST_TIMEOUT_MS`); past it, 408 `request_timeout`.",
  }),
  httpIdleTimeoutMs: setting({
    env: 'HTTP_IDLE_TIMEOUT_MS',
    parse: integer({ min: 100, max: 600_000 }),
    default: 5_000,
    doc: 'Silence allowed while a request is being received: a body that stalls this long is answered 408 `request_timeout`, a connection that sends nothing is closed.',
  }),
  httpKeepAliveTimeoutMs: setting({
    env: 'HTTP_KEEP_ALIVE_TIMEOUT_MS',
    parse: integer({ min: 100, max: 600_000 }),
    default: 72_000,
    doc: "How long an idle kept-alive connection stays open; keep it above the load balancer's idle timeout (60 s on most).",
  }),
  maxConnections: setting<number | undefined>({
    env: 'MAX_CONNECTIONS',
    parse: integer({ min: 1, max: 10_000_000 }),
    default: undefined,
    defaultDoc: 'the open-file soft limit less 256 (no cap where it cannot be read)',
    doc: "Connections one process holds at once; another is closed as it arrives. It keeps descriptors for the database and the process, so connections already open (a probe's kept-alive one) keep their answers during a flood of idle connections, which the timeouts above then cut. Node raises the open-file soft limit to the hard one as it starts; a start under a low hard limit logs a warning.",
  }),
  metricsPort: setting<number | undefined>({
    env: 'METRICS_PORT',
    parse: integer({ min: 1, max: 65535 }),
    default: undefined,
    defaultDoc: 'unset (off)',
    doc: 'Port of the Prometheus listener (`GET /metrics`), apart from the public port. Unset: no listener and no per-request metrics.',
  }),
  metricsHost: setting({
    env: 'METRICS_HOST',
    parse: text(),
    default: '127.0.0.1',
    doc: 'Address of the metrics listener: loopback unless a scraper elsewhere needs it (`0.0.0.0` in a container).',
  }),
  otelExporterOtlpEndpoint: setting<string | undefined>({
    env: 'OTEL_EXPORTER_OTLP_ENDPOINT',
    parse: url({ protocols: ['http', 'https'] }),
    default: undefined,
    defaultDoc: 'unset (off)',
    doc: 'OpenTelemetry collector for traces (OTLP/HTTP, JSON), e.g. `http://collector:4318`. Unset: no tracing, no OpenTelemetry module loaded. The standard `OTEL_TRACES_SAMPLER`, `OTEL_BSP_*`, `OTEL_EXPORTER_OTLP_*` variables apply.',
  }),
  otelServiceName: setting({
    env: 'OTEL_SERVICE_NAME',
    parse: text(),
    default: 'tollgate',
    doc: "The traces' `service.name`.",
  }),
  databaseUrl: setting<string | undefined>({
    env: 'DATABASE_URL',
    parse: postgresUrl('DATABASE_URL'),
    default: undefined,
    doc: '`postgres://…` of an external PostgreSQL (13 or newer). Unset: an embedded PostgreSQL is started in `DATA_DIR`.',
  }),
  databasePoolSize: setting({
    env: 'DATABASE_POOL_SIZE',
    parse: integer({ min: 1, max: 500 }),
    default: 10,
    doc: "Connections per process, at most: keep it times the processes under `max_connections` (or the pooler's `max_client_conn`), docs/operations.md.",
  }),
  databasePooler: setting<'none' | 'transaction'>({
    env: 'DATABASE_POOLER',
    parse: oneOf(['none', 'transaction']),
    default: 'none',
    doc: '`transaction` when `DATABASE_URL` leads to a pooler in transaction mode (PgBouncer `pool_mode = transaction`): no statement timeout as a startup parameter (each transaction sets its own), no named prepared statements. `none`: PostgreSQL itself or a session-mode pooler.',
  }),
  databaseStartTimeoutMs: setting({
    env: 'DATABASE_START_TIMEOUT_MS',
    parse: integer({ min: 0, max: 3_600_000 }),
    default: 60_000,
    doc: 'How long a starting process retries, with backoff, a database it cannot connect to (not up yet, no connection slot left) before it exits 1. `0`: no retry.',
  }),
  databaseSessionUrl: setting<string | undefined>({
    env: 'DATABASE_SESSION_URL',
    parse: postgresUrl('DATABASE_SESSION_URL'),
    default: undefined,
    doc: "`postgres://…` of PostgreSQL itself for each process's one session connection (its presence lock and `LISTEN`), when `DATABASE_URL` leads to a transaction pooler. Unset: `DATABASE_URL` unless `DATABASE_POOLER=transaction`, in which case there is no session (deliveries poll, crashed requests keep their `Idempotency-Key` for 60 s, `CACHE_COHERENCE=acknowledged` is refused).",
  }),
  cacheCoherence: setting<'barrier' | 'acknowledged'>({
    env: 'CACHE_COHERENCE',
    parse: oneOf(['barrier', 'acknowledged']),
    default: 'barrier',
    defaultDoc:
      '`acknowledged` in production when a session connection can be opened (no transaction pooler, or `DATABASE_SESSION_URL`); `barrier` otherwise',
    doc: "How an instance knows its caches miss nothing committed before a request. `barrier`: one read of the invalidation log per batch of protected requests (about 600 a second per busy instance, none idle), and a change made by SQL outside the service is honoured by the next request. `acknowledged`: a change's writer waits until every live instance has applied it, so reads cost no round trip and the log is read per write; an idle instance renews a lease about once a second, a write waits for the slowest instance (a few ms; up to `CACHE_LEASE_MS` when one dies without stopping), and a change made by SQL outside the service is applied within milliseconds rather than before the next request. Needs a session connection (see `DATABASE_SESSION_URL`). See docs/scaling.md.",
  }),
  cacheLeaseMs: setting({
    env: 'CACHE_LEASE_MS',
    parse: integer({ min: 500, max: 60_000 }),
    default: 3000,
    doc: 'With `CACHE_COHERENCE=acknowledged`: how long an instance is waited for after its last renewal (renewed every third of it). Longer: fewer renewals, and writes wait longer when an instance dies without stopping.',
  }),
  dataDir: setting({
    env: 'DATA_DIR',
    parse: directory(),
    default: () => resolve('./.data'),
    defaultDoc: '`./.data`',
    doc: 'Embedded PostgreSQL data, and the generated JWT secret when `JWT_SECRET` is unset.',
  }),
  nodeEnv: setting({
    env: 'NODE_ENV',
    parse: oneOf(['development', 'production', 'test']),
    default: 'development',
    doc: '`production` makes `JWT_SECRET` (no known placeholder, nothing guessable: few distinct characters, sequences, repeats, common words) and `PAYMENT_GATEWAY` mandatory, and refuses the development-only webhook settings.',
  }),
  jwtSecret: setting<string | undefined>({
    env: 'JWT_SECRET',
    parse: secret({ min: 32 }),
    default: undefined,
    defaultDoc: 'generated once into `DATA_DIR`',
    doc: 'HS256 key for session tokens, at least 32 bytes (a shorter stored one stops the start). Required in production.',
  }),
  jwtTtlSeconds: setting({
    env: 'JWT_TTL_SECONDS',
    parse: integer({ min: 60, max: 31_536_000 }),
    default: 86_400,
    doc: 'Session lifetime.',
  }),
  authDomain: setting({
    env: 'AUTH_DOMAIN',
    parse: text({
      pattern: SIWE_DOMAIN,
      message:
        'AUTH_DOMAIN must be a DNS name with a dot (app.example.com), an IPv4 address or localhost, with an optional ' +
        'port: sign-in messages cannot carry a single-label host (tollgate:3000) or an IPv6 address',
    }),
    default: 'localhost:3000',
    defaultDoc: '`localhost:<PORT>` (`localhost:3000` in production)',
    doc: 'EIP-4361 `domain` of the sign-in message.',
  }),
  authUri: setting({
    env: 'AUTH_URI',
    parse: url({ message: 'AUTH_URI must be an absolute URI' }),
    default: 'http://localhost:3000',
    defaultDoc: '`http://localhost:<PORT>` (`http://localhost:3000` in production)',
    doc: 'EIP-4361 `uri`; its origin is also trusted for cookie requests.',
  }),
  authChainId: setting({
    env: 'AUTH_CHAIN_ID',
    parse: integer({ min: 1 }),
    default: 1,
    doc: 'EIP-4361 chain id.',
  }),
  authNonceTtlSeconds: setting({
    env: 'AUTH_NONCE_TTL_SECONDS',
    parse: integer({ min: 10, max: 86_400 }),
    default: 600,
    doc: 'Lifetime of a login challenge (single use; a nonce request never invalidates one already handed out).',
  }),
  authRequireSiwe: setting({
    env: 'AUTH_REQUIRE_SIWE',
    parse: boolean(),
    default: false,
    doc: '`true`: only a signature over the full EIP-4361 message is accepted, not over the bare nonce.',
  }),
  chainRpcUrl: setting<string | undefined>({
    env: 'CHAIN_RPC_URL',
    parse: url({ protocols: ['http', 'https'] }),
    default: undefined,
    doc: 'JSON-RPC endpoint for smart-wallet signatures (ERC-1271, ERC-6492) and `erc20` payments. Unset: smart-wallet signatures cannot be checked and fail closed.',
  }),
  chainRpcTimeoutMs: setting({
    env: 'CHAIN_RPC_TIMEOUT_MS',
    parse: integer({ min: 100, max: 60_000 }),
    default: 5000,
    doc: 'Timeout of one chain check.',
  }),
  authVerifyThreads: setting({
    env: 'AUTH_VERIFY_THREADS',
    parse: integer({ min: 0, max: 64 }),
    default: () => Math.min(availableParallelism(), 4),
    defaultDoc: 'cores, at most 4',
    doc: 'Worker threads that recover EOA signers for `POST /auth/verify` (started with the first login, stopped after 30 s idle); `0` recovers on the event loop.',
  }),
  cookieSecure: setting({
    env: 'COOKIE_SECURE',
    parse: boolean(),
    default: true,
    doc: '`false` drops `Secure` from the session cookie (plain-http local use).',
  }),
  corsOrigins: setting<readonly string[]>({
    env: 'CORS_ORIGINS',
    parse: list((item) => (ORIGIN.test(item) ? item : undefined), 'origins (scheme://host[:port])'),
    default: [],
    defaultDoc: 'empty',
    doc: 'Comma-separated browser origins allowed with credentials; also trusted by the cookie CSRF check.',
  }),
  operatorAddresses: setting<ReadonlySet<string>>({
    env: 'OPERATOR_ADDRESSES',
    parse: (raw, name) => {
      const lowercase = (item: string) =>
        isAddress(item, { strict: false }) ? getAddress(item).toLowerCase() : undefined;
      return new Set(list(lowercase, 'wallet addresses')(raw, name));
    },
    default: new Set(),
    defaultDoc: 'empty',
    doc: "Comma-separated wallets that may read and manage any address's subscription (and so may their keys).",
  }),
  subscriptionPeriodSeconds: setting({
    env: 'SUBSCRIPTION_PERIOD_SECONDS',
    parse: integer({ min: 1 }),
    default: 2_592_000,
    doc: 'Length of a prepaid period (30 days).',
  }),
  // Unset is `free` outside production; in production a cross-check refuses it (see paymentGatewayOf).
  paymentGateway: setting<PaymentGatewayName | undefined>({
    env: 'PAYMENT_GATEWAY',
    parse: optional(oneOf(PAYMENT_GATEWAYS)),
    default: undefined,
    defaultDoc: '`free` (none in production)',
    doc: '`free`, `operator` or `erc20`: who pays for renewals (see docs/payments.md). Required when `NODE_ENV=production`.',
  }),
  paymentTokenAddress: setting<`0x${string}` | undefined>({
    env: 'PAYMENT_TOKEN_ADDRESS',
    parse: address('a contract address'),
    default: undefined,
    doc: '`erc20`: the ERC-20 contract paid in.',
  }),
  paymentReceiverAddress: setting<`0x${string}` | undefined>({
    env: 'PAYMENT_RECEIVER_ADDRESS',
    parse: address('a wallet address'),
    default: undefined,
    doc: '`erc20`: where payments go.',
  }),
  paymentPricePerPeriod: setting<bigint | undefined>({
    env: 'PAYMENT_PRICE_PER_PERIOD',
    parse: positiveUint256(),
    default: undefined,
    doc: "`erc20`: price of one period in the token's smallest unit.",
  }),
  paymentChainId: setting<number | undefined>({
    env: 'PAYMENT_CHAIN_ID',
    parse: integer({ min: 1 }),
    default: undefined,
    doc: '`erc20`: the chain the token lives on (`CHAIN_RPC_URL` must serve it).',
  }),
  paymentConfirmations: setting({
    env: 'PAYMENT_CONFIRMATIONS',
    parse: integer({ min: 1, max: 10_000 }),
    default: 1,
    doc: '`erc20`: confirmations a payment needs before it is credited (its own block counts as one).',
  }),
  // Automatic renewal (src/auto-renew/, docs/auto-renew.md) and its keeper (src/auto-renew/keeper/): the account
  // that sends the charges and pays their gas.
  autoRenewChargerAddress: setting<`0x${string}` | undefined>({
    env: 'AUTO_RENEW_CHARGER_ADDRESS',
    parse: address('a contract address'),
    default: undefined,
    doc: '`erc20`: the charging contract (contracts/TollgateCharger.sol, `npm run contracts:deploy`) on `PAYMENT_CHAIN_ID`. Set, automatic renewal is offered and production needs a keeper key (`KEEPER_PRIVATE_KEY` or `KEEPER_KEY_FILE`); unset, it is not offered under `erc20` (400 `auto_renew_unavailable`).',
  }),
  autoRenewLeadSeconds: setting({
    env: 'AUTO_RENEW_LEAD_SECONDS',
    parse: integer({ min: 0, max: 86_400 }),
    default: 300,
    doc: "How long before a period's end its automatic charge is attempted.",
  }),
  autoRenewConcurrency: setting({
    env: 'AUTO_RENEW_CONCURRENCY',
    parse: integer({ min: 1, max: 256 }),
    default: 16,
    doc: 'How many automatic charges one background worker process works on at once, each up to its receipt and confirmations: on a chain with slow blocks the charges due together are made in about (due ÷ this) waits for a block. Lower it for an endpoint that answers that many at once slower than `CHAIN_RPC_TIMEOUT_MS` or limits its rate: a timeout counts as the chain being down and the charge waits minutes.',
  }),
  autoRenewRetrySeconds: setting<readonly number[]>({
    env: 'AUTO_RENEW_RETRY_SECONDS',
    parse: list((item) => (/^[1-9]\d{0,7}$/.test(item) ? Number(item) : undefined), 'whole seconds'),
    default: [3600, 21_600, 86_400],
    defaultDoc: '`3600,21600,86400`',
    doc: 'Delays between the attempts of a failed automatic charge: the first retry this long after the failure, the next after the second delay, and so on; the last delay repeats until the grace period runs out.',
  }),
  subscriptionGraceHours: setting({
    env: 'SUBSCRIPTION_GRACE_HOURS',
    parse: integer({ min: 0, max: 8760 }),
    default: 72,
    doc: 'After an automatic charge failed, how long past the period end the subscription stays `past_due` (active, features on) while the charge is retried; then it expires with `reason: payment_failed`.',
  }),
  keeperPrivateKey: setting<`0x${string}` | undefined>({
    env: 'KEEPER_PRIVATE_KEY',
    parse: privateKey(),
    default: undefined,
    doc: "The keeper's gas-paying key (0x and 64 hex digits); it can spend only its own ether on gas (SECURITY.md). Never logged. Prefer `KEEPER_KEY_FILE`.",
  }),
  keeperKeyFile: setting<`0x${string}` | undefined>({
    env: 'KEEPER_KEY_FILE',
    parse: privateKeyFile(),
    default: undefined,
    doc: "A file holding only the keeper's key (0x and 64 hex digits), read at start; instead of `KEEPER_PRIVATE_KEY`.",
  }),
  keeperMinBalanceWei: setting<bigint>({
    env: 'KEEPER_MIN_BALANCE_WEI',
    parse: positiveUint256(),
    default: 10n ** 16n,
    defaultDoc: '`10000000000000000` (0.01 ether)',
    doc: "Below this gas balance (wei) `/health/ready` names the keeper's address in `checks.keeper` and the balance gauge shows it.",
  }),
  keeperReplaceAfterSeconds: setting({
    env: 'KEEPER_REPLACE_AFTER_SECONDS',
    parse: integer({ min: 1, max: 86_400 }),
    default: 180,
    doc: 'A charge transaction not mined this long after it was sent is replaced: same nonce, higher fee (never a second charge).',
  }),
  // Plans (src/plans/): what an operator may offer besides the `default` plan the settings above define.
  plansMax: setting({
    env: 'PLANS_MAX',
    parse: integer({ min: 1, max: 1000 }),
    default: 100,
    doc: 'Most plans offered at once, besides `default` (archived ones do not count); one more is 400 `plan_limit_reached`.',
  }),
  planFeaturesMax: setting({
    env: 'PLAN_FEATURES_MAX',
    parse: integer({ min: 1, max: 1000 }),
    default: 50,
    doc: 'Most features (entitlement keys) one plan may list; more is 400 `plan_limit_reached`.',
  }),
  // API keys (expiry, notices).
  apiKeyMaxLifetimeDays: setting<number | undefined>({
    env: 'API_KEY_MAX_LIFETIME_DAYS',
    parse: integer({ min: 1, max: 36_500 }),
    default: undefined,
    defaultDoc: 'unset (no maximum)',
    doc: 'Longest API key lifetime: an `expiresAt` further ahead is 400 `invalid_expiry`, and a key created without one expires this many days after its creation. Unset: no maximum. A key never outlives an expiring key that created it.',
  }),
  apiKeysMaxPerWallet: setting({
    env: 'API_KEYS_MAX_PER_WALLET',
    parse: integer({ min: 1, max: 1000 }),
    default: 100,
    doc: 'Live (neither revoked nor expired) API keys one wallet may hold; creating one more is refused with 400 `api_key_limit_reached` until a key is revoked or expires.',
  }),
  apiKeyExpiryNoticeHours: setting({
    env: 'API_KEY_EXPIRY_NOTICE_HOURS',
    parse: integer({ min: 1, max: 8_760 }),
    default: 168,
    doc: 'How long before an API key expires its `api_key.expiring` event goes out (168 = 7 days).',
  }),
  webhookAllowHttp: setting({
    env: 'WEBHOOK_ALLOW_HTTP',
    parse: boolean(),
    default: false,
    doc: 'Allow plain `http://` webhook URLs (development: `npm run dev` sets `true` unless set). With `NODE_ENV=production` the start is refused unless `WEBHOOK_UNSAFE_IN_PRODUCTION=true`.',
  }),
  webhookAllowPrivate: setting({
    env: 'WEBHOOK_ALLOW_PRIVATE',
    parse: boolean(),
    default: false,
    doc: 'Allow webhook URLs that resolve to private, loopback or link-local addresses (development, tests: `npm run dev` sets `true` unless set). With `NODE_ENV=production` the start is refused unless `WEBHOOK_UNSAFE_IN_PRODUCTION=true`.',
  }),
  webhookUnsafeInProduction: setting({
    env: 'WEBHOOK_UNSAFE_IN_PRODUCTION',
    parse: boolean(),
    default: false,
    doc: '`true` acknowledges `WEBHOOK_ALLOW_HTTP=true` or `WEBHOOK_ALLOW_PRIVATE=true` with `NODE_ENV=production` (a closed network whose receivers are all internal): without it such a start is refused, with it every start logs a warning. Plain http lets anyone on the path read and replay deliveries; private targets let any signed-in wallet make the service call into its own network.',
  }),
  workersEnabled: setting({
    env: 'WEBHOOK_WORKERS',
    parse: boolean(),
    default: true,
    doc: 'Run the background workers (webhook delivery, subscription and API-key expiry sweeps, scheduled plan changes, reminders, event purge) in this process. `false` for API-only instances.',
  }),
  // Events API and renewal reminders (issue 29).
  eventsRetentionDays: setting({
    env: 'EVENTS_RETENTION_DAYS',
    parse: integer({ min: 1, max: 3650 }),
    default: 30,
    doc: 'How long events stay listed by `GET /events`; older ones are purged by the background workers (an event whose webhook delivery is still pending is kept until it ends).',
  }),
  eventsMaxPerWalletPerDay: setting({
    env: 'EVENTS_MAX_PER_WALLET_PER_DAY',
    parse: integer({ min: 1, max: 1_000_000 }),
    default: 1000,
    doc: "Events about one wallet within 24 h past which its key creations, renewals and test webhooks are refused (409 `event_limit_reached`); revocations, cancels and the service's own events never are.",
  }),
  subscriptionExpiringNoticeHours: setting({
    env: 'SUBSCRIPTION_EXPIRING_NOTICE_HOURS',
    parse: integer({ min: 1, max: 8760 }),
    default: 72,
    doc: 'How long before the end of an active, not canceled period its `subscription.expiring` event is sent (once per period end), and before the end of a trial its `subscription.trial_will_end` (once per trial).',
  }),
  rateLimitPerMinute: setting<number | undefined>({
    env: 'RATE_LIMIT_PER_MINUTE',
    parse: integer({ min: 0 }),
    default: undefined,
    defaultDoc: 'unset (off)',
    doc: 'Requests per minute per client address on public routes; on the others, per credential (API key or session token) and, once it is authenticated, per wallet (all its sessions and API keys together, so new keys bring no new budget); over it, 429 `rate_limited` with `Retry-After`. Health probes are exempt. Unset or `0`: no limit (the interface announces none).',
  }),
  rateLimitRedisUrl: setting<string | undefined>({
    env: 'RATE_LIMIT_REDIS_URL',
    parse: url({ protocols: ['redis', 'rediss'] }),
    default: undefined,
    defaultDoc: 'unset (per process)',
    doc: 'Redis shared by every instance for the rate-limit counters (`redis://host:6379`). Unset: each process counts on its own, so N instances allow N times the limit. While Redis cannot be reached, requests are not limited (logged).',
  }),
  rateLimitLocalCounters: setting({
    env: 'RATE_LIMIT_LOCAL_COUNTERS',
    parse: integer({ min: 10, max: 10_000_000 }),
    default: 100_000,
    doc: 'Without `RATE_LIMIT_REDIS_URL`: the counters one process keeps for each kind of budget (client addresses, credentials, wallets), the least recently used dropped first. A budget whose counter is dropped starts afresh; invented credentials only push out other credentials.',
  }),
  logLevel: setting({
    env: 'LOG_LEVEL',
    parse: oneOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']),
    default: 'info',
    doc: 'pino level: `fatal`, `error`, `warn`, `info`, `debug`, `trace`, `silent`.',
  }),
  webConcurrency: setting({
    env: 'WEB_CONCURRENCY',
    parse: integer({ min: 1, max: 64 }),
    default: 1,
    doc: 'Worker processes (node cluster) on one machine.',
  }),
  // Development loop (npm run dev).
  dashboardDir: setting<string | undefined>({
    env: 'DASHBOARD_DIR',
    parse: directory(),
    default: undefined,
    defaultDoc: '`dist/web` of the package',
    doc: 'Folder of the built dashboard served at `/dashboard`: with NODE_ENV=production read once at start, otherwise read again whenever its `index.html` changes. `npm run dev` points it at its watch build (`.dev/web`).',
  }),
} satisfies Record<string, Setting<unknown>>;

/** The validated, typed configuration every module reads. Built once at start and never mutated. */
export type AppConfig = {
  readonly [Key in keyof typeof SETTINGS]: (typeof SETTINGS)[Key] extends Setting<infer Value>
    ? Value
    : never;
};

/**
 * Defaults that follow other settings, applied to a setting whose variable is unset once every setting parsed. A
 * development instance on another PORT signs in on its own address without AUTH_DOMAIN and AUTH_URI; production
 * keeps the fixed defaults, since its public address is never localhost anyway.
 */
export const DERIVED_DEFAULTS: {
  readonly [Key in keyof AppConfig]?: (config: AppConfig) => AppConfig[Key];
} = {
  authDomain: (config) => (config.nodeEnv === 'production' ? config.authDomain : `localhost:${config.port}`),
  authUri: (config) => (config.nodeEnv === 'production' ? config.authUri : `http://localhost:${config.port}`),
  // Development and the tests keep the stricter guarantee for changes made by SQL (docs/scaling.md).
  cacheCoherence: (config) =>
    config.nodeEnv === 'production' &&
    (config.databasePooler !== 'transaction' || config.databaseSessionUrl !== undefined)
      ? 'acknowledged'
      : 'barrier',
};

/**
 * Rules across settings, checked once every setting parsed: each returns a problem (naming its variables) or
 * nothing.
 */
export const CROSS_CHECKS: ReadonlyArray<(config: AppConfig) => string | undefined> = [
  (config) =>
    config.nodeEnv === 'production' && !config.jwtSecret
      ? 'JWT_SECRET: required when NODE_ENV=production (at least 32 bytes)'
      : undefined,
  (config) => {
    const weakness =
      config.nodeEnv === 'production' && config.jwtSecret ? weakSecretReason(config.jwtSecret) : undefined;
    return weakness && `JWT_SECRET: ${weakness}; generate one with \`openssl rand -base64 48\``;
  },
  (config) => {
    const unsafe = unsafeWebhookSettings(config);
    return config.nodeEnv === 'production' && unsafe.length > 0 && !config.webhookUnsafeInProduction
      ? `${unsafe.join(', ')}: refused when NODE_ENV=production (${UNSAFE_WEBHOOK_RISK}); set ` +
          'WEBHOOK_UNSAFE_IN_PRODUCTION=true only if every webhook receiver is meant to be internal'
      : undefined;
  },
  (config) =>
    config.cacheCoherence === 'acknowledged' &&
    config.databasePooler === 'transaction' &&
    config.databaseSessionUrl === undefined
      ? 'CACHE_COHERENCE=acknowledged: needs a session connection past the transaction pooler; set DATABASE_SESSION_URL to PostgreSQL itself'
      : undefined,
  (config) =>
    config.httpHeadersTimeoutMs > config.httpRequestTimeoutMs
      ? 'HTTP_HEADERS_TIMEOUT_MS: must not exceed HTTP_REQUEST_TIMEOUT_MS'
      : undefined,
  // Defaulting to `free` in production would give every subscription away unnoticed.
  (config) =>
    config.nodeEnv === 'production' && config.paymentGateway === undefined
      ? 'PAYMENT_GATEWAY: required when NODE_ENV=production (free, operator or erc20; see docs/payments.md)'
      : undefined,
  (config) => {
    if (config.paymentGateway !== 'erc20') return undefined;
    const missing = Object.entries({
      PAYMENT_TOKEN_ADDRESS: config.paymentTokenAddress,
      PAYMENT_RECEIVER_ADDRESS: config.paymentReceiverAddress,
      PAYMENT_PRICE_PER_PERIOD: config.paymentPricePerPeriod,
      PAYMENT_CHAIN_ID: config.paymentChainId,
      CHAIN_RPC_URL: config.chainRpcUrl,
    }).filter(([, value]) => value === undefined);
    return missing.length > 0
      ? `PAYMENT_GATEWAY=erc20 requires ${missing.map(([name]) => name).join(', ')}`
      : undefined;
  },
  // Without a key nobody sends the charges: mandates would be accepted and never collected.
  (config) =>
    config.nodeEnv === 'production' &&
    config.autoRenewChargerAddress !== undefined &&
    config.keeperPrivateKey === undefined &&
    config.keeperKeyFile === undefined
      ? 'AUTO_RENEW_CHARGER_ADDRESS: automatic renewal needs the keeper key in production (KEEPER_KEY_FILE or KEEPER_PRIVATE_KEY)'
      : undefined,
  (config) =>
    config.keeperPrivateKey !== undefined && config.keeperKeyFile !== undefined
      ? 'KEEPER_PRIVATE_KEY and KEEPER_KEY_FILE: set one, not both'
      : undefined,
  (config) =>
    config.autoRenewRetrySeconds.length === 0
      ? 'AUTO_RENEW_RETRY_SECONDS: at least one delay (seconds between the attempts of a failed charge)'
      : undefined,
  (config) =>
    config.paymentTokenAddress !== undefined && config.paymentTokenAddress === config.paymentReceiverAddress
      ? 'PAYMENT_RECEIVER_ADDRESS: must differ from PAYMENT_TOKEN_ADDRESS'
      : undefined,
];

/**
 * Settings that are allowed but weaken a deployment, each returning the warning logged once at start (server-main.ts), naming
 * its variable, or nothing.
 */
export const ADVISORIES: ReadonlyArray<(config: AppConfig) => string | undefined> = [
  // The interface's literal flow (a signature over the bare nonce) stays accepted, but the bare nonce names no site:
  // a phishing page can ask for the very same signature.
  (config) =>
    config.nodeEnv === 'production' && !config.authRequireSiwe
      ? 'AUTH_REQUIRE_SIWE=false: a signature over the bare nonce is accepted, which names no domain and so helps ' +
        'phishing; set AUTH_REQUIRE_SIWE=true once your clients sign the full EIP-4361 message (SECURITY.md)'
      : undefined,
  (config) => {
    const unsafe = unsafeWebhookSettings(config);
    return config.nodeEnv === 'production' && unsafe.length > 0
      ? `${unsafe.join(', ')} in production (acknowledged by WEBHOOK_UNSAFE_IN_PRODUCTION=true): ${UNSAFE_WEBHOOK_RISK}`
      : undefined;
  },
];

const UNSAFE_WEBHOOK_RISK =
  'any signed-in wallet may then point a webhook at plain http, readable and replayable on the way, or at private ' +
  'and loopback addresses, making this server call into its own network';

/** The development-only webhook settings that are on. */
function unsafeWebhookSettings(config: AppConfig): string[] {
  return [
    ...(config.webhookAllowHttp ? ['WEBHOOK_ALLOW_HTTP=true'] : []),
    ...(config.webhookAllowPrivate ? ['WEBHOOK_ALLOW_PRIVATE=true'] : []),
  ];
}

/** What an ERC-20 payment must look like to be credited (docs/payments.md). */
export interface Erc20PaymentSettings {
  readonly chainId: number;
  /** EIP-55. */
  readonly token: `0x${string}`;
  /** EIP-55. */
  readonly receiver: `0x${string}`;
  /** In the token's smallest unit. */
  readonly pricePerPeriod: bigint;
  readonly confirmations: number;
  readonly rpcUrl: string;
}

/** The gateway in force: `free` when unset (the cross-checks refuse that in production). */
export function paymentGatewayOf(config: AppConfig): PaymentGatewayName {
  return config.paymentGateway ?? 'free';
}

/** The `erc20` gateway's settings; the cross-checks made sure every one is set when it is chosen. */
export function erc20PaymentSettings(config: AppConfig): Erc20PaymentSettings {
  return {
    chainId: config.paymentChainId!,
    token: config.paymentTokenAddress!,
    receiver: config.paymentReceiverAddress!,
    pricePerPeriod: config.paymentPricePerPeriod!,
    confirmations: config.paymentConfirmations,
    rpcUrl: config.chainRpcUrl!,
  };
}

/** The keeper's key, from `KEEPER_PRIVATE_KEY` or `KEEPER_KEY_FILE` (the cross-checks allow one), if any. */
export function keeperKeyOf(config: AppConfig): `0x${string}` | undefined {
  return config.keeperPrivateKey ?? config.keeperKeyFile;
}

/** Whether automatic renewal is offered, and on what terms (docs/auto-renew.md). */
export type AutoRenewOffer =
  | { readonly gateway: 'free' }
  | {
      readonly gateway: 'erc20';
      readonly chainId: number;
      /** EIP-55. */
      readonly charger: `0x${string}`;
      readonly token: `0x${string}`;
      readonly payee: `0x${string}`;
      readonly rpcUrl: string;
    }
  | { readonly gateway: 'unavailable'; readonly why: string };

/** `free`: renewed with zero payments; `erc20` with the charging contract set; never under `operator`. */
export function autoRenewOfferOf(config: AppConfig): AutoRenewOffer {
  const gateway = paymentGatewayOf(config);
  if (gateway === 'free') return { gateway };
  if (gateway === 'operator') {
    return {
      gateway: 'unavailable',
      why: 'PAYMENT_GATEWAY=operator, the integrator bills its customers itself',
    };
  }
  if (config.autoRenewChargerAddress === undefined) {
    return { gateway: 'unavailable', why: 'no charging contract is configured (AUTO_RENEW_CHARGER_ADDRESS)' };
  }
  const erc20 = erc20PaymentSettings(config);
  return {
    gateway,
    chainId: erc20.chainId,
    charger: config.autoRenewChargerAddress,
    token: erc20.token,
    payee: erc20.receiver,
    rpcUrl: erc20.rpcUrl,
  };
}
