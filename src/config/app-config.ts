import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseEnv } from 'node:util';
import { InvalidSetting, type Setting } from './setting.js';
import { ADVISORIES, CROSS_CHECKS, DERIVED_DEFAULTS, SETTINGS, type AppConfig } from './settings.js';

export type { AppConfig } from './settings.js';

export class ConfigValidationError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigValidationError';
  }
}

type Environment = Record<string, string | undefined>;

/** Reads `.env` (if any) under the process environment: a variable set in the environment wins. */
export function readEnvironment(env: Environment = process.env, envFile = resolve('.env')): Environment {
  if (!existsSync(envFile)) return { ...env };
  return { ...parseEnv(readFileSync(envFile, 'utf8')), ...env };
}

function defaultOf<T>(declared: Setting<T>): T {
  return typeof declared.default === 'function' ? (declared.default as () => T)() : declared.default;
}

/** Validates the environment against {@link SETTINGS} and builds the configuration, reporting every bad variable. */
export function loadAppConfig(env: Environment = readEnvironment()): AppConfig {
  const problems: string[] = [];
  const values: Record<string, unknown> = {};
  for (const [key, declared] of Object.entries(SETTINGS) as Array<[string, Setting<unknown>]>) {
    const raw = env[declared.env];
    let value: unknown;
    try {
      value = raw === undefined ? undefined : declared.parse(raw, declared.env);
    } catch (error) {
      if (!(error instanceof InvalidSetting)) throw error;
      problems.push(error.message);
    }
    values[key] = value === undefined ? defaultOf(declared) : value;
  }
  const config = values as AppConfig;
  for (const [key, derive] of Object.entries(DERIVED_DEFAULTS) as Array<
    [keyof AppConfig, (c: AppConfig) => unknown]
  >) {
    if (env[SETTINGS[key].env] === undefined) values[key] = derive(config);
  }
  for (const check of CROSS_CHECKS) {
    const problem = check(config);
    if (problem) problems.push(problem);
  }
  if (problems.length > 0) throw new ConfigValidationError(problems);
  return Object.freeze(config);
}

/** The warnings a configuration deserves at start (see {@link ADVISORIES}). */
export function configAdvisories(config: AppConfig): string[] {
  return ADVISORIES.map((advise) => advise(config)).filter((advice) => advice !== undefined);
}
