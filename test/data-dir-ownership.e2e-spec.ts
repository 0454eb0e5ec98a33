import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isRunning } from '../src/database/data-dir-owner.js';
import { http } from './utils/http.js';
import { until } from './utils/receiver.js';
import {
  spawnServiceProcess,
  startEmbeddedServiceProcess,
  type ServiceProcess,
} from './utils/service-process.js';
import { login } from './utils/wallet.js';

const postmasterPid = async (dataDir: string): Promise<number> =>
  Number((await readFile(join(dataDir, 'postgres', 'postmaster.pid'), 'utf8')).split('\n')[0]);

/** The process's embedded-PostgreSQL watchdog: its `sh` child (Linux's /proc). */
function watchdogOf(pid: number): number {
  const children = readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((entry) => {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return stat.includes('(sh)') && Number(fields[1]) === pid;
    });
  expect(children).toHaveLength(1);
  return Number(children[0]);
}

/** Signs a new wallet in and reads its subscription: what a user of the instance does first. */
async function signInAndRead(url: string): Promise<number[]> {
  const session = await login(url);
  const status = await http(url).get(`/subscriptions/status?address=${session.address}`, {
    token: session.token,
  });
  return [status.status, (await http(url).get('/health')).status];
}

// `npm start` (no DATABASE_URL) starts a PostgreSQL of its own in DATA_DIR; that directory has one owner.
describe('one data directory, one owner', () => {
  let dataDir: string;
  const running: ServiceProcess[] = [];

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'tollgate-owner-'));
  });
  afterAll(async () => {
    for (const service of running) await service.kill('SIGTERM');
    await rm(dataDir, { recursive: true, force: true });
  });

  it('refuses a second instance on the directory (exit 78, one line naming it and the owner) and leaves the first serving', async () => {
    const first = await startEmbeddedServiceProcess(dataDir);
    running.push(first);
    const database = await postmasterPid(dataDir);

    const second = await spawnServiceProcess({ DATA_DIR: dataDir });
    expect(await second.exited).toBe(78);
    // On a Node.js line past its end of life, the start's one warning about it comes first.
    const lines = second.output
      .join('')
      .trim()
      .split('\n')
      .filter((line) => !line.includes('reached its end of life'));
    expect(lines).toEqual([
      `DATA_DIR ${dataDir} is in use by another Tollgate (pid ${first.child.pid}): stop that one first, or give ` +
        'this one another DATA_DIR or a DATABASE_URL.',
    ]);

    expect(isRunning(database)).toBe(true);
    expect(await postmasterPid(dataDir)).toBe(database);
    expect(await signInAndRead(first.url)).toEqual([200, 200]);
    expect(first.child.exitCode).toBeNull();
  });

  it('still refuses when the owner file is gone: the running PostgreSQL names its live parent', async () => {
    const [first] = running;
    const database = await postmasterPid(dataDir);
    await rm(join(dataDir, 'tollgate.pid'));

    const second = await spawnServiceProcess({ DATA_DIR: dataDir });
    expect(await second.exited).toBe(78);
    expect(second.output.join('')).toContain(
      `DATA_DIR ${dataDir} is in use by another Tollgate (pid ${first!.child.pid})`,
    );
    expect(second.output.join('')).not.toContain('stopping an embedded PostgreSQL');
    expect(await postmasterPid(dataDir)).toBe(database);
    expect(await signInAndRead(first!.url)).toEqual([200, 200]);
  });

  it('takes the directory over from an owner that died (SIGKILL) with its watchdog, stopping the database it left behind', async () => {
    const [first] = running.splice(0);
    const orphan = await postmasterPid(dataDir);
    // The watchdog would stop the database itself (test/embedded-watchdog.e2e-spec.ts): here it died too.
    process.kill(watchdogOf(first!.child.pid!), 'SIGKILL');
    await first!.kill('SIGKILL');
    // The database outlives its killed owner: the next start finds it running and stops it.
    expect(isRunning(orphan)).toBe(true);

    const next = await startEmbeddedServiceProcess(dataDir);
    running.push(next);
    await until(() => !isRunning(orphan), 15_000, 'the orphaned PostgreSQL to stop');
    expect(await postmasterPid(dataDir)).not.toBe(orphan);
    expect(await readFile(join(dataDir, 'tollgate.pid'), 'utf8')).toContain(`"pid":${next.child.pid}`);
    expect(await signInAndRead(next.url)).toEqual([200, 200]);
  });
});
