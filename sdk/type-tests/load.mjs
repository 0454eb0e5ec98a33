// Run by sdk/src/module-formats.spec.ts: the client as an ES module program loads it, with import.
import * as client from '@tollgate/client';

const tollgate = client.createTollgateClient({ baseUrl: 'http://localhost:3000' });
process.stdout.write(
  JSON.stringify({
    exports: Object.keys(client).sort(),
    paginate: typeof tollgate.paginate,
    family: new client.TollgateTimeoutError(1, 'http://x') instanceof client.TollgateError,
  }),
);
