import { SETTINGS } from '../config/settings.js';
import { installTracing } from './tracing.js';

const DEFAULT_SERVICE_NAME = SETTINGS.otelServiceName.default as string;

/**
 * Starts OpenTelemetry tracing when OTEL_EXPORTER_OTLP_ENDPOINT is set, and otherwise does nothing: the SDK is
 * imported here and only here, so a service without the variable loads no OpenTelemetry module at all. The entry
 * points call it before they import the application (the instrumentations must see `http` and `pg` load).
 *
 * A malformed value starts no tracing; the configuration check that follows reports it and stops the start.
 */
export async function startTracing(
  serviceVersion: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<boolean> {
  const endpoint = read(SETTINGS.otelExporterOtlpEndpoint, env);
  if (endpoint === undefined) return false;
  const serviceName = read(SETTINGS.otelServiceName, env) ?? DEFAULT_SERVICE_NAME;
  const { startOpenTelemetry } = await import('./opentelemetry.js');
  installTracing(startOpenTelemetry({ serviceName, serviceVersion }));
  return true;
}

function read<T>(
  setting: { env: string; parse: (raw: string, name: string) => T | undefined },
  env: NodeJS.ProcessEnv,
): T | undefined {
  const raw = env[setting.env];
  if (raw === undefined) return undefined;
  try {
    return setting.parse(raw, setting.env);
  } catch {
    return undefined;
  }
}
