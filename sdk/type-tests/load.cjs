// Run by sdk/src/module-formats.spec.ts: the client as a CommonJS program loads it, with require().
// eslint-disable-next-line @typescript-eslint/no-require-imports -- the CommonJS form is what is tested
const client = require('@tollgate/client');

const tollgate = client.createTollgateClient({ baseUrl: 'http://localhost:3000' });
process.stdout.write(
  JSON.stringify({
    exports: Object.keys(client).sort(),
    paginate: typeof tollgate.paginate,
    family: new client.TollgateTimeoutError(1, 'http://x') instanceof client.TollgateError,
  }),
);
