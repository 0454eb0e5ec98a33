import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const CLI = resolve('sdk/dist/esm/cli/main.js');

/** What one run of the CLI printed, and how it ended. */
export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * `tollgate` (sdk/src/cli, built to sdk/dist) as a developer runs it: a child process in a scratch directory (its
 * home: the session in $XDG_CONFIG_HOME/tollgate/session.json), the service URL in TOLLGATE_URL. Credentials come
 * only from `extra`, never from the test's own environment.
 */
export function cli(serviceUrl: () => string, name: string) {
  const home = mkdtempSync(join(tmpdir(), `tollgate-${name}-`));

  function environment(extra: Record<string, string>): NodeJS.ProcessEnv {
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      XDG_CONFIG_HOME: home,
      TOLLGATE_URL: serviceUrl(),
      ...extra,
    };
    for (const variable of ['TOLLGATE_API_KEY', 'TOLLGATE_PRIVATE_KEY'])
      if (!(variable in extra)) delete env[variable];
    return env;
  }

  function start(args: string[], extra: Record<string, string> = {}): ChildProcess {
    return spawn(process.execPath, [CLI, ...args], { cwd: home, env: environment(extra) });
  }

  function run(args: string[], extra: Record<string, string> = {}): Promise<CliRun> {
    const child = start(args, extra);
    const result: CliRun = { code: null, stdout: '', stderr: '' };
    child.stdout!.on('data', (chunk: Buffer) => (result.stdout += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (result.stderr += chunk.toString()));
    return new Promise((done) => child.on('close', (code) => done({ ...result, code })));
  }

  return { home, environment, start, run };
}

/** The `key: value` lines a command printed. */
export function fields(stdout: string): Record<string, string> {
  return Object.fromEntries(
    stdout
      .trim()
      .split('\n')
      .map((line) => /^(\w+):\s+(.*)$/.exec(line))
      .filter((match) => match !== null)
      .map((match) => [match[1]!, match[2]!]),
  );
}
