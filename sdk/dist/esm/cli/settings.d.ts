import { type Credential } from '../credentials.js';
export declare const DEFAULT_URL = "http://localhost:3000";
/** A mistake of the command line or its setup: printed without a stack, exit status 2. */
export declare class UsageError extends Error {
}
/** A variable from the environment, else from a `.env` in the working directory (the environment wins). */
export declare function setting(name: string): string | undefined;
/**
 * The service: `--url`, else TOLLGATE_URL (environment or `.env`), else the `PORT` of a `.env` in the working
 * directory (the service's own, in a checkout) on localhost, else http://localhost:3000.
 */
export declare function serviceUrl(flag: string | undefined): string;
/** What `login` stores: readable only by its owner (mode 600). */
export interface StoredSession {
    url: string;
    address: string;
    token: string;
    expiresAt: string;
}
/** `--token-file`, else `$XDG_CONFIG_HOME/tollgate/session.json` (`~/.config/tollgate/session.json`). */
export declare function sessionFile(flag: string | undefined): string;
export declare function saveSession(file: string, session: StoredSession): void;
/** The session `login` stored for `url`, while it lasts. */
export declare function loadSession(url: string, file: string): StoredSession;
/**
 * The credential to call `url` with: TOLLGATE_API_KEY (environment or `.env`), else the session `login` stored
 * for that same URL while it lasts.
 */
export declare function credentialFor(url: string, file: string): Credential;
