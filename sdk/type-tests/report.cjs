// What load.cjs and load.mjs print of the client each loaded, so sdk/src/module-formats.spec.ts can compare them.
module.exports = async function report(client) {
  const tollgate = client.createTollgateClient({ baseUrl: 'http://localhost:3000' });
  // A call's own maxRetries over the client's: this build's openapi-fetch must carry it to the transport.
  let attempts = 0;
  const busy = client.createTollgateClient({
    baseUrl: 'http://localhost:3000',
    maxRetries: 0,
    fetch: async () => {
      attempts++;
      return new Response(null, { status: 503, headers: { 'retry-after': '0' } });
    },
  });
  await busy.GET('/health', { maxRetries: 1 });
  // One build: whatever loaded it, require() and import() hand out the same module, so the same classes.
  const imported = await import('@tollgate/client');
  process.stdout.write(
    JSON.stringify({
      exports: Object.keys(client).sort(),
      paginate: typeof tollgate.paginate,
      family: new client.TollgateTimeoutError(1, 'http://x') instanceof client.TollgateError,
      attemptsWithOneRetryPerCall: attempts,
      sameModuleAsImport: imported.TollgateError === client.TollgateError,
    }),
  );
};
