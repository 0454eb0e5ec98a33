/// <reference types="node" />
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { parseEnv } from 'node:util';
import { apiKey, sessionToken, type Credential } from '../credentials.js';

export const DEFAULT_URL = 'http://localhost:3000';

/** A mistake of the command line or its setup: printed without a stack, exit status 2. */
export class UsageError extends Error {}

function dotEnv(): Record<string, string | undefined> {
  return existsSync('.env') ? parseEnv(readFileSync('.env', 'utf8')) : {};
}

/** A variable from the environment, else from a `.env` in the working directory (the environment wins). */
export function setting(name: string): string | undefined {
  const value = process.env[name] || dotEnv()[name];
  return value === '' ? undefined : value;
}

/**
 * The service: `--url`, else TOLLGATE_URL (environment or `.env`), else the `PORT` of a `.env` in the working
 * directory (the service's own, in a checkout) on localhost, else http://localhost:3000.
 */
export function serviceUrl(flag: string | undefined): string {
  const local = (): string => {
    const port = dotEnv().PORT;
    return port ? `http://localhost:${port}` : DEFAULT_URL;
  };
  return (flag ?? setting('TOLLGATE_URL') ?? local()).replace(/\/+$/, '');
}

/** What `login` stores: readable only by its owner (mode 600). */
export interface StoredSession {
  url: string;
  address: string;
  token: string;
  expiresAt: string;
}

/** `--token-file`, else `$XDG_CONFIG_HOME/tollgate/session.json` (`~/.config/tollgate/session.json`). */
export function sessionFile(flag: string | undefined): string {
  if (flag !== undefined) return flag;
  const config = process.env.XDG_CONFIG_HOME || join(homedir(), '.config');
  return join(config, 'tollgate', 'session.json');
}

export function saveSession(file: string, session: StoredSession): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  writeFileSync(file, `${JSON.stringify(session, null, 2)}\n`, { mode: 0o600 });
  // An existing file keeps its old mode through writeFileSync: tighten it.
  chmodSync(file, 0o600);
}

function readSession(file: string): StoredSession | undefined {
  if (!existsSync(file)) return undefined;
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as StoredSession;
  } catch {
    return undefined;
  }
}

/** The session `login` stored for `url`, while it lasts. */
export function loadSession(url: string, file: string): StoredSession {
  const session = readSession(file);
  if (session === undefined) {
    throw new UsageError(
      `not signed in: run \`tollgate login\` or set TOLLGATE_API_KEY (no session in ${file})`,
    );
  }
  if (session.url !== url) {
    throw new UsageError(`the session in ${file} is for ${session.url}, not ${url}: run \`tollgate login\``);
  }
  if (Date.parse(session.expiresAt) <= Date.now()) {
    throw new UsageError(`the session in ${file} expired at ${session.expiresAt}: run \`tollgate login\``);
  }
  return session;
}

/**
 * The credential to call `url` with: TOLLGATE_API_KEY (environment or `.env`), else the session `login` stored
 * for that same URL while it lasts.
 */
export function credentialFor(url: string, file: string): Credential {
  const key = setting('TOLLGATE_API_KEY');
  if (key !== undefined) {
    try {
      return apiKey(key.trim());
    } catch {
      throw new UsageError(
        'TOLLGATE_API_KEY is not an API key: expected tg_ followed by 38 letters and digits',
      );
    }
  }
  const session = loadSession(url, file);
  return sessionToken(session.token, session.expiresAt);
}
