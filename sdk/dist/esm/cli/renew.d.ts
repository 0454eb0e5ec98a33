import type { TollgateClient } from '../client.js';
import type { components } from '../schema.js';
type RenewBody = components['schemas']['RenewSubscriptionDto'];
type Subscription = components['schemas']['SubscriptionDto'];
export interface WaitOptions {
    log: (line: string) => void;
    /** How long to wait between two attempts, in milliseconds. */
    intervalMs?: number;
}
/**
 * `tollgate renew`: POST /subscriptions/renew. With `wait`, asked again while the transfer is not mined yet
 * (`payment_not_found`) or lacks confirmations (`payment_not_confirmed`), with a line of progress each time, under
 * one Idempotency-Key: the service keeps no answer for these two refusals, so the key is free for the next attempt.
 */
export declare function renew(client: TollgateClient, body: RenewBody, wait?: WaitOptions): Promise<Subscription>;
export {};
