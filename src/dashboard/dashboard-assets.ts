import { Logger } from '@nestjs/common';
import { existsSync, readdirSync, readFileSync, statSync, type Stats } from 'node:fs';
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
 * The whole build is a few tens of kilobytes, so it is served from memory. Undefined when the folder holds no
 * build (only the server was built), so the service still starts and says what is missing.
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

/**
 * The build in a folder, as served. In production (`reload: false`) the build never changes while the service runs:
 * it is read once here and every request is answered from memory. Otherwise it is read again when its `index.html`
 * changed (size or modification time), at the cost of one `stat` per dashboard request: `npm run dev`'s watch build
 * rewrites the folder on every change of web/, and a reloaded page then gets the new build without a restart.
 */
export class DashboardBuild {
  private assets: Map<string, DashboardAsset> | undefined;
  private version: string | undefined;

  constructor(
    private readonly dir: string,
    private readonly options: { reload: boolean },
  ) {
    if (options.reload) return;
    try {
      this.assets = loadDashboardAssets(dir);
    } catch (error) {
      // The API must not fail to start over its dashboard: /dashboard answers 503 until a readable build and a restart.
      new Logger(DashboardBuild.name).error(
        `the dashboard build in ${dir} could not be read: ${(error as Error).message}`,
      );
    }
  }

  current(): Map<string, DashboardAsset> | undefined {
    if (!this.options.reload) return this.assets;
    let page: Stats | undefined;
    try {
      page = statSync(join(this.dir, 'index.html'));
    } catch {
      page = undefined; // no build (yet)
    }
    const version = page && `${page.size}:${page.mtimeMs}`;
    if (version === this.version) return this.assets;
    try {
      this.assets = loadDashboardAssets(this.dir);
    } catch {
      return this.assets; // a rebuild emptied the folder while it was read: keep the last build, look again next time
    }
    this.version = version;
    return this.assets;
  }
}
