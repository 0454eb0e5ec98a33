import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = fileURLToPath(new URL('.', import.meta.url));

/**
 * The dashboard builds into the service's own output (dist/web), which the DashboardModule serves at /dashboard.
 * Preact's JSX goes through Vite's built-in transform: no plugin, no Babel.
 */
export default defineConfig({
  root: here,
  base: '/dashboard/',
  publicDir: 'public',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: fileURLToPath(new URL('../dist/web', import.meta.url)),
    emptyOutDir: true,
    // The CSP allows no inline script: keep every script in a file (the polyfill is not needed by any target).
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    target: 'es2022',
    sourcemap: false,
  },
});
