// Compiled by `npm run check -w sdk` (and sdk/src/type-tests.spec.ts): what must compile for an integrator, and
// the mistakes that must not.
/* eslint-disable no-console -- examples as an integrator writes them, printing */
import { privateKeyToAccount } from 'viem/accounts';
import {
  apiKey,
  createTollgateClient,
  enableAutoRenew,
  isTollgateError,
  TollgateConnectionError,
  TollgateError,
  TollgateTimeoutError,
  unwrap,
  verifyWebhook,
  type ErrorCode,
  type Schema,
} from '@tollgate/client';

const tollgate = createTollgateClient({
  baseUrl: 'https://tollgate.example.com',
  credential: apiKey('tg_0123456789abcdefghijklmnopqrstuvwxyzAB'),
  timeout: 10_000,
  maxRetries: 3,
});

export async function status(address: string): Promise<Schema<'SubscriptionDto'>> {
  return unwrap(tollgate.GET('/subscriptions/status', { params: { query: { address } } }));
}

export async function renewOnce(): Promise<boolean> {
  try {
    // Per-call settings ride along with the call's options.
    const renewed = await unwrap(
      tollgate.POST('/subscriptions/renew', { body: {}, timeout: 5_000, maxRetries: 1 }),
    );
    return renewed.active;
  } catch (error) {
    if (isTollgateError(error, 'payment_required', 'rate_limited', 'timeout', 'connection_failed'))
      return false;
    if (error instanceof TollgateTimeoutError || error instanceof TollgateConnectionError) return false;
    // @ts-expect-error a misspelled code is no code of the API
    if (isTollgateError(error, 'insufficent_scope')) return false;
    throw error;
  }
}

export async function typedByOperation(): Promise<void> {
  const failure = await unwrap(tollgate.POST('/api-keys/revoke', { body: { id: 'x' } })).catch(
    (error: TollgateError<ErrorCode<'revokeApiKey'>>) => error,
  );
  if (failure instanceof TollgateError) {
    const code: ErrorCode<'revokeApiKey'> | 'unexpected_response' | 'connection_failed' | 'timeout' =
      failure.code;
    void code;
    // @ts-expect-error revoking a key never answers a payment code
    isTollgateError(failure, 'payment_insufficient');
  }
}

export async function mistakes(): Promise<void> {
  // @ts-expect-error no such path
  await tollgate.GET('/subscription/status');
  // @ts-expect-error a body without the required `scopes`, and a misspelled field
  await tollgate.POST('/api-keys', { body: { labl: 'reader' } });
  // @ts-expect-error a scope that does not exist
  await tollgate.POST('/api-keys', { body: { label: 'reader', scopes: ['READ_ALL'] } });
  // @ts-expect-error the status is no list: it cannot be paged
  tollgate.paginate('/subscriptions/status');
  // @ts-expect-error a misspelt per-call setting (openapi-fetch alone takes any key, and this one would do nothing)
  await tollgate.GET('/health', { timout: 1_000 });
  // @ts-expect-error a per-call setting of the wrong type
  await tollgate.DELETE('/webhooks/{id}', { params: { path: { id: 'x' } }, maxRetries: 'twice' });
  // @ts-expect-error the same through request()
  await tollgate.request('get', '/health', { maxRetrys: 0 });
}

// Per-call settings on every method, beside the call's other options; `parseAs` still types the answer.
export async function perCall(): Promise<string | undefined> {
  await tollgate.GET('/health', { timeout: 1_000, maxRetries: 0 });
  await tollgate.DELETE('/webhooks/{id}', { params: { path: { id: 'x' } }, timeout: 1_000 });
  await tollgate.request('post', '/subscriptions/cancel', { body: {}, maxRetries: 0 });
  for await (const key of tollgate.paginate('/api-keys/list', { timeout: 1_000 })) console.log(key.label);
  const { data } = await tollgate.GET('/health', { parseAs: 'text', timeout: 1_000 });
  return data;
}

export async function everyKey(): Promise<string[]> {
  const labels: string[] = [];
  for await (const key of tollgate.paginate('/api-keys/list')) labels.push(key.label);
  for await (const attempt of tollgate.paginate('/webhooks/deliveries', {
    params: { query: { limit: 20 } },
  })) {
    labels.push(attempt.eventType);
  }
  for await (const event of tollgate.paginate('/subscriptions/history', {
    params: { query: { address: '0x1' } },
  })) {
    labels.push(event.type);
  }
  return labels;
}

// docs/api-guide.md, "Pagination": the loop by hand, as printed there.
export async function byHand(): Promise<void> {
  let cursor: string | undefined;
  do {
    const { data, response } = await tollgate.GET('/api-keys/list', {
      params: { query: { limit: 100, ...(cursor === undefined ? {} : { cursor }) } },
    });
    for (const key of data ?? []) console.log(key.label);
    cursor = response.headers.get('x-next-cursor') ?? undefined;
  } while (cursor);
}

// docs/api-guide.md, "Errors" and "Idempotency", as printed there.
export async function guideErrors(address: string, id: string): Promise<void> {
  try {
    await unwrap(tollgate.POST('/subscriptions/cancel', { body: { address } }));
  } catch (error) {
    if (isTollgateError(error, 'subscription_not_found')) return; // never subscribed: nothing to cancel
    throw error; // a TollgateError has .status, .error (the message), .code, .details and .requestId
  }
  await unwrap(
    tollgate.POST('/subscriptions/renew', { body: {}, params: { header: { 'Idempotency-Key': id } } }),
  );
}

export async function receive(secret: string, headers: Headers, rawBody: string): Promise<void> {
  const event = await verifyWebhook(secret, headers, rawBody);
  if (event.type === 'subscription.renewed') console.log(event.data.address, event.data.currentPeriodEnd);
  if (event.type === 'subscription.payment_failed') console.log(event.data.reason, event.data.nextAttemptAt);
  if (event.type === 'subscription.recovered') console.log(event.data.status);
}

// docs/auto-renew.md, "From the client": a viem account signs the mandate.
export async function renewAutomatically(key: `0x${string}`): Promise<void> {
  const subscription = await enableAutoRenew(tollgate, { signer: privateKeyToAccount(key), periods: 12 });
  console.log(subscription.autoRenew.nextChargeAt, subscription.autoRenew.allowanceShortfall);
  // @ts-expect-error -- a signer of personal messages only cannot sign the mandate's typed data
  await enableAutoRenew(tollgate, { signer: { address: '0x1', signMessage: async () => '0x' } });
}
