// Run by sdk/src/module-formats.spec.ts: the client as an ES module program loads it, with import.
import * as client from '@tollgate/client';
import report from './report.cjs';

await report(client);
