import { fileURLToPath } from 'node:url';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

function findPackageVersion(): string {
  // Source runs from src/common, the build from dist/src/common: walk up to the package.json.
  for (let dir = fileURLToPath(new URL('.', import.meta.url)); dir !== '/'; dir = join(dir, '..')) {
    try {
      return (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string }).version;
    } catch {
      continue;
    }
  }
  return '0.0.0';
}

/** The running service's version, from package.json. */
export const SERVICE_VERSION = findPackageVersion();
