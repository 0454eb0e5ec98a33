import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { withConfigTable } from './config-table.js';

/** `npm run docs:config`: rewrites README.md's configuration table from the declarations in settings.ts. */
const readmePath = resolve(process.argv[2] ?? 'README.md');
const before = readFileSync(readmePath, 'utf8');
const after = withConfigTable(before);
if (after !== before) writeFileSync(readmePath, after);
console.warn(
  after === before ? 'README.md configuration table is current' : 'README.md configuration table rewritten',
);
