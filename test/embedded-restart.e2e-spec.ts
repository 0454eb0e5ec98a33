import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { http } from './utils/http.js';
import { until } from './utils/receiver.js';
import { startEmbeddedServiceProcess, type ServiceProcess } from './utils/service-process.js';
import { login } from './utils/wallet.js';

const postmasterPid = async (dataDir: string): Promise<number> =>
  Number(
    (await readFile(join(dataDir, 'postgres', 'postmaster.pid'), 'utf8').catch(() => '')).split('\n')[0],
  );

// The embedded PostgreSQL dying under a running instance: started again, or the process exits for a supervisor.
describe('the embedded PostgreSQL killed under a running instance', () => {
  let dataDir: string;
  let service: ServiceProcess | undefined;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'tollgate-restart-'));
  });
  afterAll(async () => {
    await service?.kill('SIGTERM');
    await rm(dataDir, { recursive: true, force: true });
  });

  it('is started again and the instance serves again; when it cannot be, the process exits 1 with a fatal line', async () => {
    service = await startEmbeddedServiceProcess(dataDir);
    const session = await login(service.url);
    const status = () =>
      http(service!.url).get(`/subscriptions/status?address=${session.address}`, { token: session.token });
    const killed = await postmasterPid(dataDir);

    process.kill(killed, 'SIGKILL');
    // Its backends outlive the postmaster for a moment and may still answer: serving counts only once a new
    // postmaster has started.
    await until(
      async () => {
        const pid = await postmasterPid(dataDir);
        return pid > 0 && pid !== killed && (await status()).status === 200;
      },
      60_000,
      'serving again after the kill',
    );
    const restarted = await postmasterPid(dataDir);
    expect(restarted).not.toBe(killed);
    expect(service.child.exitCode).toBeNull();
    expect((await http(service.url).get('/health')).status).toBe(200);

    // A data directory PostgreSQL refuses: every attempt to start it again fails.
    await rm(join(dataDir, 'postgres', 'PG_VERSION'));
    process.kill(restarted, 'SIGKILL');
    expect(await service.exited).toBe(1);
    const fatal = service.output
      .join('')
      .split('\n')
      .filter((line) => line.includes('"level":60'));
    expect(fatal).toHaveLength(1);
    expect(JSON.parse(fatal[0]!).msg).toMatch(
      /^the embedded PostgreSQL cannot be kept running \(.+\): exiting for a supervisor to restart$/,
    );
  });
});
