import { SERVICE_VERSION } from './common/version.js';
import { startTracing } from './tracing/start-tracing.js';

// The background workers without HTTP (src/worker-main.ts), imported once tracing is started, as in main.ts.
await startTracing(SERVICE_VERSION);
await import('./worker-main.js');
