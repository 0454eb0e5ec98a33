import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { renderEnvExample, withConfigTable } from '../config/config-table.js';

/** `npm run docs:config`: rewrites docs/configuration.md's table and .env.example from settings.ts. */
function rewrite(path: string, render: (before: string) => string): void {
  const before = readFileSync(path, 'utf8');
  const after = render(before);
  if (after !== before) writeFileSync(path, after);
  console.warn(after === before ? `${path} is current` : `${path} rewritten`);
}

rewrite(resolve(process.argv[2] ?? 'docs/configuration.md'), withConfigTable);
rewrite(resolve(process.argv[3] ?? '.env.example'), () => renderEnvExample());
