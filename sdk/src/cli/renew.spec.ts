import { createTollgateClient } from '../client.js';
import { TollgateError } from '../errors.js';
import { renew } from './renew.js';

const TX_HASH = `0x${'ab'.repeat(32)}`;
const SUBSCRIPTION = { address: '0x1', status: 'active', active: true };

/** A service that refuses the renewal with each of `refusals` in turn, then renews; records the keys it got. */
function service(refusals: Array<{ code: string; details?: object }>) {
  const keys: Array<string | null> = [];
  const client = createTollgateClient({
    baseUrl: 'http://127.0.0.1:1',
    maxRetries: 0,
    fetch: async (request) => {
      keys.push(request.headers.get('idempotency-key'));
      const refusal = refusals.shift();
      const [status, body] =
        refusal === undefined
          ? [200, SUBSCRIPTION]
          : [
              refusal.code === 'payment_not_found' ? 402 : 409,
              { error: refusal.code, details: { code: refusal.code, ...refusal.details } },
            ];
      return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
    },
  });
  return { client, keys };
}

describe('tollgate renew', () => {
  it('waits with --wait while the transfer is not mined or lacks confirmations, under one Idempotency-Key', async () => {
    const { client, keys } = service([
      { code: 'payment_not_found' },
      { code: 'payment_not_confirmed', details: { confirmations: 1, required: 3 } },
      { code: 'payment_not_confirmed', details: { confirmations: 2, required: 3 } },
    ]);
    const lines: string[] = [];
    const renewed = await renew(
      client,
      { payment: { txHash: TX_HASH } },
      { log: (line) => lines.push(line), intervalMs: 1 },
    );
    expect(renewed).toEqual(SUBSCRIPTION);
    expect(lines).toEqual([
      expect.stringMatching(/^waiting for the transfer to be mined \(\d+ s; Ctrl-C to stop\)$/),
      expect.stringMatching(/^waiting for confirmations: 1 of 3 \(\d+ s; Ctrl-C to stop\)$/),
      expect.stringMatching(/^waiting for confirmations: 2 of 3 \(\d+ s; Ctrl-C to stop\)$/),
    ]);
    expect(keys).toHaveLength(4);
    expect(new Set(keys).size).toBe(1);
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('answers the first refusal without --wait, and never waits out a refusal that time does not change', async () => {
    const once = service([{ code: 'payment_not_confirmed', details: { confirmations: 1, required: 3 } }]);
    await expect(renew(once.client, { payment: { txHash: TX_HASH } })).rejects.toMatchObject({
      code: 'payment_not_confirmed',
    });
    expect(once.keys).toHaveLength(1);

    const used = service([{ code: 'payment_already_used' }]);
    const lines: string[] = [];
    const thrown = await renew(
      used.client,
      { payment: { txHash: TX_HASH } },
      { log: (line) => lines.push(line), intervalMs: 1 },
    ).catch((error: unknown) => error);
    expect(thrown).toBeInstanceOf(TollgateError);
    expect(thrown).toMatchObject({ code: 'payment_already_used' });
    expect(lines).toEqual([]);
  });
});
