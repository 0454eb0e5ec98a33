import type { TollgateClient } from '../client.js';
import type { components } from '../schema.js';
type EventType = NonNullable<components['schemas']['SaveWebhookDto']['events']>[number];
export interface ListenOptions {
    /** Where verified deliveries go: an http or https URL. */
    forwardTo: string;
    /** Where to write the webhook's signing secret (mode 600); the log only shows its start. */
    secretFile?: string | undefined;
    events: EventType[] | undefined;
    /** Port of the local receiver on 127.0.0.1; 0 takes any free one. */
    port: number;
    print: (line: string) => void;
    log: (line: string) => void;
}
/**
 * The endpoint to forward to: an http(s) URL, nothing else (no file:, data: or other schemes fetch might take). A
 * host other than this machine is allowed (a tunnel, a container) but named, since deliveries then leave it.
 */
export declare function forwardTarget(text: string, log: (line: string) => void): URL;
/** `whsec_` and the first characters of the key: enough to tell two secrets apart, not enough to sign. */
export declare function maskSecret(secret: string): string;
/** What ends a `listen`: Ctrl-C, a process manager's stop, the terminal closing. */
export declare const STOP_SIGNALS: readonly ["SIGINT", "SIGTERM", "SIGHUP"];
/**
 * `tollgate listen --forward-to <url>`: a receiver on loopback, registered as a webhook of the signed-in wallet.
 * Each delivery's signature is checked with the secret the registration returned; a valid one is forwarded, raw
 * body and headers unchanged, to the developer's endpoint, whose status is the answer the service gets (so its
 * retries behave as they would in production). One line per delivery on stdout. Ctrl-C deletes the webhook.
 */
export declare function listen(client: TollgateClient, options: ListenOptions): Promise<void>;
export {};
