// Development tool: signs a wallet in from a private key and prints a session token, for people without a wallet
// extension who want to call the API with curl or the interactive docs. Never use a key that holds real funds.
//
//   npm run login -- --key 0x<64 hex digits> [--url …]  (default: TOLLGATE_URL, else http://localhost:$PORT or :3000)
//   npm run login -- --key-file path/to/key [--url …]      (the file holds the 0x… key; surrounding space ignored)
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { signIn, isTollgateError } from '@tollgate/client';
import { privateKeyToAccount } from 'viem/accounts';

const USAGE = 'usage: npm run login -- (--key 0x<64 hex> | --key-file <path>) [--url <base URL>]';

function fail(message) {
  console.error(message);
  process.exit(2);
}

let values;
try {
  ({ values } = parseArgs({
    options: {
      key: { type: 'string' },
      'key-file': { type: 'string' },
      url: {
        type: 'string',
        default: process.env.TOLLGATE_URL ?? `http://localhost:${process.env.PORT ?? 3000}`,
      },
    },
  }));
} catch (error) {
  fail(`${error.message}\n${USAGE}`);
}
if ((values.key === undefined) === (values['key-file'] === undefined)) fail(USAGE);

const key = (values.key ?? readFileSync(values['key-file'], 'utf8')).trim();
if (!/^0x[0-9a-fA-F]{64}$/.test(key)) fail('the key must be 0x followed by 64 hex digits');

try {
  const session = await signIn(values.url, privateKeyToAccount(key));
  console.log(`address:   ${session.address}`);
  console.log(`token:     ${session.token}`);
  console.log(`expiresAt: ${session.expiresAt.toISOString()}`);
} catch (error) {
  if (isTollgateError(error)) fail(`sign-in refused: ${error.status} ${error.code}: ${error.message}`);
  fail(`could not reach ${values.url}: ${error.cause?.message ?? error.message}`);
}
