import { isTollgateError, unwrap } from '../errors.js';
const DEFAULT_INTERVAL_MS = 5_000;
/**
 * `tollgate renew`: POST /subscriptions/renew. With `wait`, asked again while the transfer is not mined yet
 * (`payment_not_found`) or lacks confirmations (`payment_not_confirmed`), with a line of progress each time, under
 * one Idempotency-Key: the service keeps no answer for these two refusals, so the key is free for the next attempt.
 */
export async function renew(client, body, wait) {
    const key = crypto.randomUUID();
    const started = Date.now();
    for (;;) {
        try {
            return await unwrap(client.POST('/subscriptions/renew', { body, params: { header: { 'Idempotency-Key': key } } }));
        }
        catch (error) {
            if (wait === undefined || !isTollgateError(error, 'payment_not_found', 'payment_not_confirmed'))
                throw error;
            const elapsed = `${Math.round((Date.now() - started) / 1000)} s`;
            const { confirmations, required } = error.details;
            wait.log(error.code === 'payment_not_found'
                ? `waiting for the transfer to be mined (${elapsed}; Ctrl-C to stop)`
                : `waiting for confirmations: ${confirmations ?? '?'} of ${required ?? '?'} (${elapsed}; Ctrl-C to stop)`);
            await new Promise((resolve) => setTimeout(resolve, wait.intervalMs ?? DEFAULT_INTERVAL_MS));
        }
    }
}
