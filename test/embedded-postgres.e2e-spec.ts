import 'reflect-metadata';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import pg from 'pg';
import { pino } from 'pino';
import { createApp } from '../src/app.js';
import { loadAppConfig } from '../src/config/app-config.js';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../src/database/embedded-postgres.js';
import { runMigrations } from '../src/database/migrate.js';
import { TEST_JWT_SECRET } from './utils/test-app.js';

// initdb and two server starts take several seconds, more on a busy machine.
const TIMEOUT_MS = 180_000;

const logger = pino({ level: 'silent' });

async function query<T extends pg.QueryResultRow>(url: string, text: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(text)).rows;
  } finally {
    await client.end();
  }
}

// The default when DATABASE_URL is unset (src/main.ts): a PostgreSQL of its own in DATA_DIR, started in-process.
describe('the embedded PostgreSQL', () => {
  /** A data directory initialised once for the file: first start, migrations, a row written, stopped. */
  let dataDir: string;
  let firstStart: { url: URL; password: string; applied: string[] };
  /** Started by the test running now; stopped after it. */
  let running: EmbeddedDatabase | undefined;
  const passwordFile = (): Promise<string> => readFile(join(dataDir, 'postgres-password'), 'utf8');
  const start = async (): Promise<EmbeddedDatabase> =>
    (running = await startEmbeddedPostgres(dataDir, logger));

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'tollgate-embedded-'));
    const database = await start();
    try {
      const applied = await runMigrations(database.url);
      await query(database.url, 'CREATE TABLE survivor (id int PRIMARY KEY, note text NOT NULL)');
      await query(database.url, "INSERT INTO survivor VALUES (1, 'written before the restart')");
      firstStart = { url: new URL(database.url), password: await passwordFile(), applied };
    } finally {
      await database.stop();
      running = undefined;
    }
  }, TIMEOUT_MS);
  afterEach(async () => {
    await running?.stop();
    running = undefined;
  }, TIMEOUT_MS);
  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
  }, TIMEOUT_MS);

  it('initialises on first start, on a free port, with its password in DATA_DIR, and takes the migrations', () => {
    expect(firstStart.url.hostname).toBe('127.0.0.1');
    expect(Number(firstStart.url.port)).toBeGreaterThan(0);
    expect(firstStart.url.port).not.toBe('5432');
    expect(decodeURIComponent(firstStart.url.password)).toBe(firstStart.password.trim());
    expect(firstStart.applied.length).toBeGreaterThan(0);
  });

  it(
    'keeps its data and its password across a restart',
    async () => {
      const database = await start();
      const url = new URL(database.url);
      expect(await passwordFile()).toBe(firstStart.password);
      expect(url.password).toBe(firstStart.url.password);
      expect(url.port).not.toBe('5432');

      expect(await query(database.url, 'SELECT id, note FROM survivor')).toEqual([
        { id: 1, note: 'written before the restart' },
      ]);
      expect(await runMigrations(database.url)).toEqual([]);
      expect(await query(database.url, 'SELECT name FROM migrations')).toHaveLength(
        firstStart.applied.length,
      );
    },
    TIMEOUT_MS,
  );

  it(
    'serves the real app: GET /health answers 200',
    async () => {
      const database = await start();
      const config = loadAppConfig({
        NODE_ENV: 'test',
        DATABASE_URL: database.url,
        DATABASE_POOL_SIZE: '2',
        DATA_DIR: dataDir,
        JWT_SECRET: TEST_JWT_SECRET,
        LOG_LEVEL: 'silent',
      });
      const app = await createApp(config, logger);
      try {
        await app.listen({ port: 0, host: '127.0.0.1' });
        const address = app.getHttpServer().address();
        const port = typeof address === 'object' && address ? address.port : 0;
        const response = await fetch(`http://127.0.0.1:${port}/health`);
        expect(response.status).toBe(200);
        expect(await response.json()).toMatchObject({ status: 'ok', checks: { database: { status: 'up' } } });
      } finally {
        await app.close();
      }
    },
    TIMEOUT_MS,
  );

  it(
    'never lets another local user read the superuser password while initdb runs',
    async () => {
      // A separate process: jest gives each test file a copy of process.env, which the library's os.tmpdir()
      // would not see. TMPDIR points at a directory standing for the shared /tmp.
      const sharedTmp = await mkdtemp(join(tmpdir(), 'tollgate-shared-tmp-'));
      const freshData = await mkdtemp(join(tmpdir(), 'tollgate-embedded-'));
      const module = fileURLToPath(new URL('../dist/src/database/embedded-postgres.js', import.meta.url));
      const script = `import(${JSON.stringify(module)}).then(async (m) => {
        const { pino } = await import('pino');
        const db = await m.startEmbeddedPostgres(process.argv[1], pino({ level: 'silent' }));
        await db.stop();
      })`;
      const child = spawn(process.execPath, ['--input-type=module', '-e', script, freshData], {
        cwd: fileURLToPath(new URL('..', import.meta.url)),
        env: { ...process.env, TMPDIR: sharedTmp },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));

      const privateDir = join(freshData, 'initdb-tmp');
      const leaked = new Set<string>();
      const seen = new Map<string, { directoryMode: number; otherUser?: string }>();
      let running = true;
      void exited.then(() => (running = false));
      while (running) {
        for (const entry of readdirSync(sharedTmp)) leaked.add(entry);
        const files = existsSync(privateDir) ? readdirSync(privateDir) : [];
        for (const entry of files.filter((name) => name.startsWith('pg-password-') && !seen.has(name))) {
          const path = join(privateDir, entry);
          // As root, try what any other local user could: read the file while initdb needs it.
          const attempt =
            userInfo().uid === 0 ? spawnSync('runuser', ['-u', 'nobody', '--', 'cat', path]) : undefined;
          seen.set(entry, {
            directoryMode: statSync(privateDir).mode & 0o777,
            otherUser:
              attempt && `${attempt.status} ${attempt.stdout.toString()}${attempt.stderr.toString()}`,
          });
        }
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
      expect({ code: await exited, stderr }).toEqual({ code: 0, stderr: '' });
      expect([...leaked]).toEqual([]);
      expect(seen.size).toBe(1);
      const [observed] = [...seen.values()];
      expect(observed!.directoryMode).toBe(0o700);
      if (observed!.otherUser !== undefined) expect(observed!.otherUser).toMatch(/^1 .*Permission denied/);
      expect(existsSync(privateDir)).toBe(false);
      await rm(freshData, { recursive: true, force: true });
      await rm(sharedTmp, { recursive: true, force: true });
    },
    TIMEOUT_MS,
  );
});
