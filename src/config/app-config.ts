import { existsSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { parseEnv } from 'node:util';
import { plainToInstance } from 'class-transformer';
import { validateSync, type ValidationError } from 'class-validator';
import { getAddress, isAddress } from 'viem';
import { EnvironmentVariables } from './environment.js';

/** The validated, typed configuration every module reads. Built once at start and never mutated. */
export interface AppConfig {
  readonly nodeEnv: 'development' | 'production' | 'test';
  readonly port: number;
  readonly host: string;
  /** Unset until the embedded PostgreSQL has started (see database/embedded-postgres.ts). */
  readonly databaseUrl: string | undefined;
  readonly databasePoolSize: number;
  readonly dataDir: string;
  /** Unset outside production: a secret is then generated once and kept in DATA_DIR. */
  readonly jwtSecret: string | undefined;
  readonly jwtTtlSeconds: number;
  readonly authDomain: string;
  readonly authUri: string;
  readonly authChainId: number;
  readonly authNonceTtlSeconds: number;
  readonly authRequireSiwe: boolean;
  readonly chainRpcUrl: string | undefined;
  readonly chainRpcTimeoutMs: number;
  /** Worker threads that recover EOA signers off the event loop; 0 recovers on it. */
  readonly authVerifyThreads: number;
  readonly cookieSecure: boolean;
  readonly corsOrigins: readonly string[];
  /** Lowercase addresses. */
  readonly operatorAddresses: ReadonlySet<string>;
  readonly subscriptionPeriodSeconds: number;
  readonly webhookAllowHttp: boolean;
  readonly webhookAllowPrivate: boolean;
  /** Whether this process runs the background workers (webhook delivery, expiry sweep). */
  readonly workersEnabled: boolean;
  readonly rateLimitPerMinute: number | undefined;
  readonly logLevel: string;
  readonly webConcurrency: number;
  readonly paymentGateway: 'default';
}

export class ConfigValidationError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigValidationError';
  }
}

type Environment = Record<string, string | undefined>;

/** Reads `.env` (if any) under the process environment: a variable set in the environment wins. */
export function readEnvironment(env: Environment = process.env, envFile = resolve('.env')): Environment {
  if (!existsSync(envFile)) return { ...env };
  return { ...parseEnv(readFileSync(envFile, 'utf8')), ...env };
}

function flatten(errors: ValidationError[]): string[] {
  return errors.flatMap((error) =>
    Object.values(error.constraints ?? {}).map((message) =>
      message.startsWith(error.property) ? message : `${error.property}: ${message}`,
    ),
  );
}

function splitList(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item.length > 0);
}

/** Validates the environment and builds the configuration, reporting every bad variable at once. */
export function loadAppConfig(env: Environment = readEnvironment()): AppConfig {
  const vars = plainToInstance(EnvironmentVariables, env, { excludeExtraneousValues: false });
  const problems = flatten(validateSync(vars, { skipMissingProperties: false, forbidUnknownValues: false }));

  const operators = splitList(vars.OPERATOR_ADDRESSES);
  const badOperators = operators.filter((address) => !isAddress(address, { strict: false }));
  if (badOperators.length > 0) {
    problems.push(`OPERATOR_ADDRESSES: not wallet addresses: ${badOperators.join(', ')}`);
  }
  const corsOrigins = splitList(vars.CORS_ORIGINS);
  const badOrigins = corsOrigins.filter((origin) => !/^https?:\/\/[^/\s]+$/.test(origin));
  if (badOrigins.length > 0) {
    problems.push(`CORS_ORIGINS: not origins (scheme://host[:port]): ${badOrigins.join(', ')}`);
  }
  const nodeEnv = (vars.NODE_ENV ?? 'development') as AppConfig['nodeEnv'];
  if (nodeEnv === 'production' && !vars.JWT_SECRET) {
    problems.push('JWT_SECRET: required when NODE_ENV=production (at least 32 bytes)');
  }
  if (problems.length > 0) throw new ConfigValidationError(problems);

  return Object.freeze({
    nodeEnv,
    port: vars.PORT ?? 3000,
    host: vars.HOST ?? '0.0.0.0',
    databaseUrl: vars.DATABASE_URL,
    databasePoolSize: vars.DATABASE_POOL_SIZE ?? 10,
    dataDir: resolve(vars.DATA_DIR ?? './.data'),
    jwtSecret: vars.JWT_SECRET,
    jwtTtlSeconds: vars.JWT_TTL_SECONDS ?? 86_400,
    authDomain: vars.AUTH_DOMAIN ?? 'localhost:3000',
    authUri: vars.AUTH_URI ?? 'http://localhost:3000',
    authChainId: vars.AUTH_CHAIN_ID ?? 1,
    authNonceTtlSeconds: vars.AUTH_NONCE_TTL_SECONDS ?? 600,
    authRequireSiwe: vars.AUTH_REQUIRE_SIWE ?? false,
    chainRpcUrl: vars.CHAIN_RPC_URL,
    chainRpcTimeoutMs: vars.CHAIN_RPC_TIMEOUT_MS ?? 5000,
    authVerifyThreads: vars.AUTH_VERIFY_THREADS ?? Math.min(availableParallelism(), 4),
    cookieSecure: vars.COOKIE_SECURE ?? true,
    corsOrigins,
    operatorAddresses: new Set(operators.map((address) => getAddress(address).toLowerCase())),
    subscriptionPeriodSeconds: vars.SUBSCRIPTION_PERIOD_SECONDS ?? 2_592_000,
    webhookAllowHttp: vars.WEBHOOK_ALLOW_HTTP ?? false,
    webhookAllowPrivate: vars.WEBHOOK_ALLOW_PRIVATE ?? false,
    workersEnabled: vars.WEBHOOK_WORKERS ?? true,
    rateLimitPerMinute: vars.RATE_LIMIT_PER_MINUTE,
    logLevel: vars.LOG_LEVEL ?? 'info',
    webConcurrency: vars.WEB_CONCURRENCY ?? 1,
    paymentGateway: (vars.PAYMENT_GATEWAY ?? 'default') as AppConfig['paymentGateway'],
  });
}
