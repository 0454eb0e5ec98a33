/**
 * Preloaded (`--import`) into a service process by the tracing test: writes one `loaded-module <url>` line to
 * standard error for every OpenTelemetry module the process loads, ESM imports (seen by a resolve hook, in the
 * loader's thread) and CommonJS requires (found in the require cache at exit) alike.
 */
import { createRequire, register } from 'node:module';
import { writeSync } from 'node:fs';

const hook = `
import { writeSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  if (resolved.url.includes('/@opentelemetry/')) writeSync(2, 'loaded-module ' + resolved.url + '\\n');
  return resolved;
}`;
register(`data:text/javascript,${encodeURIComponent(hook)}`);

const require = createRequire(import.meta.url);
process.on('exit', () => {
  for (const path of Object.keys(require.cache)) {
    if (path.includes('/@opentelemetry/')) writeSync(2, `loaded-module ${path}\n`);
  }
});
