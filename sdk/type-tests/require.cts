// A CommonJS module (TypeScript's `.cts`) loads the client with require(): the package's `require` condition.
// eslint-disable-next-line @typescript-eslint/no-require-imports -- the CommonJS form is what is tested
import client = require('@tollgate/client');

const tollgate = client.createTollgateClient({ baseUrl: 'http://localhost:3000' });
export const pending: Promise<unknown> = client.unwrap(tollgate.GET('/health'));
// @ts-expect-error no such path
tollgate.GET('/healthz');
export const quick: Promise<unknown> = client.unwrap(
  tollgate.GET('/health', { timeout: 1_000, maxRetries: 0 }),
);
// @ts-expect-error a misspelt per-call setting
tollgate.GET('/health', { timout: 1_000 });
