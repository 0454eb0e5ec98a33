import { SERVICE_VERSION } from './common/version.js';
import { startTracing } from './tracing/start-tracing.js';

// The HTTP service (src/server-main.ts), imported once tracing is started: OpenTelemetry's instrumentations patch
// `http` and `pg` as they load, and a static import would load them first.
await startTracing(SERVICE_VERSION);
await import('./server-main.js');
