import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { until } from './utils/receiver.js';
import { startEmbeddedServiceProcess, type ServiceProcess } from './utils/service-process.js';

const postmasterPid = async (dataDir: string): Promise<number> =>
  Number(
    (await readFile(join(dataDir, 'postgres', 'postmaster.pid'), 'utf8').catch(() => '')).split('\n')[0],
  );

/** Running, not merely a zombie waiting for a parent that does not reap (an orphan's parent may be any pid 1). */
const isRunning = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  const stat = existsSync(`/proc/${pid}/stat`) ? readFileSync(`/proc/${pid}/stat`, 'utf8') : '';
  return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
};

// SIGKILL is also what the kernel's out-of-memory killer sends: no handler of the process runs either way.
describe('the embedded PostgreSQL of a process that is killed', () => {
  let dataDir: string;
  let service: ServiceProcess | undefined;
  let postmaster = 0;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'tollgate-watchdog-'));
  });
  afterAll(async () => {
    await service?.kill('SIGTERM');
    if (postmaster > 0 && isRunning(postmaster)) process.kill(postmaster, 'SIGQUIT');
    await rm(dataDir, { recursive: true, force: true });
  });

  it('stops within seconds when the process is SIGKILLed', async () => {
    service = await startEmbeddedServiceProcess(dataDir);
    postmaster = await postmasterPid(dataDir);
    expect(isRunning(postmaster)).toBe(true);

    await service.kill('SIGKILL');
    await until(async () => !isRunning(postmaster), 10_000, 'the orphaned postmaster stopped');
  });
});
