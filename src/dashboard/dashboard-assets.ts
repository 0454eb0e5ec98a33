import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface DashboardAsset {
  body: Buffer;
  type: string;
  /** Vite names every bundled file after its content hash, so those can be cached for good. */
  immutable: boolean;
}

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'application/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
};

/** Where `npm run build` writes the dashboard: `dist/web` beside `dist/src`, found from this file in src or dist. */
export function defaultDashboardDir(): string {
  for (let dir = fileURLToPath(new URL('.', import.meta.url)); dir !== sep; dir = join(dir, '..')) {
    if (existsSync(join(dir, 'package.json'))) return join(dir, 'dist', 'web');
  }
  return join(process.cwd(), 'dist', 'web');
}

/**
 * Every file of the built dashboard, keyed by its URL path under /dashboard ("index.html", "assets/x-1a2b.js").
 * The whole build is a few tens of kilobytes, so it is read once at start and served from memory. Undefined when
 * the folder holds no build (only `nest build` ran), so the service still starts and says what is missing.
 */
export function loadDashboardAssets(dir: string): Map<string, DashboardAsset> | undefined {
  if (!existsSync(join(dir, 'index.html'))) return undefined;
  const assets = new Map<string, DashboardAsset>();
  const walk = (current: string): void => {
    for (const name of readdirSync(current)) {
      const path = join(current, name);
      if (statSync(path).isDirectory()) {
        walk(path);
        continue;
      }
      const type = TYPES[extname(name).toLowerCase()];
      if (!type) continue;
      const key = relative(dir, path).split(sep).join('/');
      assets.set(key, { body: readFileSync(path), type, immutable: key.startsWith('assets/') });
    }
  };
  walk(dir);
  return assets;
}
