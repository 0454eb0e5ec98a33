// Run by sdk/src/module-formats.spec.ts: the client as a CommonJS program loads it, with require().
// eslint-disable-next-line @typescript-eslint/no-require-imports -- the CommonJS form is what is tested
const client = require('@tollgate/client');
// eslint-disable-next-line @typescript-eslint/no-require-imports -- the shared report, loaded the CommonJS way
const report = require('./report.cjs');

void report(client);
