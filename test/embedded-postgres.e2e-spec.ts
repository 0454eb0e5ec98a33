import 'reflect-metadata';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
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
  let dataDir: string;
  let database: EmbeddedDatabase | undefined;
  let first: URL;
  const passwordFile = (): Promise<string> => readFile(join(dataDir, 'postgres-password'), 'utf8');
  let password: string;
  let applied: string[];

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'tollgate-embedded-'));
  });
  afterAll(async () => {
    await database?.stop();
    await rm(dataDir, { recursive: true, force: true });
  }, TIMEOUT_MS);

  it(
    'initialises on first start, on a free port, and takes the migrations',
    async () => {
      database = await startEmbeddedPostgres(dataDir, logger);
      first = new URL(database.url);
      expect(first.hostname).toBe('127.0.0.1');
      expect(Number(first.port)).toBeGreaterThan(0);
      expect(first.port).not.toBe('5432');
      password = await passwordFile();
      expect(decodeURIComponent(first.password)).toBe(password.trim());

      applied = await runMigrations(database.url);
      expect(await query(database.url, 'SELECT name FROM migrations')).toHaveLength(applied.length);
      await query(database.url, 'CREATE TABLE survivor (id int PRIMARY KEY, note text NOT NULL)');
      await query(database.url, "INSERT INTO survivor VALUES (1, 'written before the restart')");
      await database.stop();
      database = undefined;
    },
    TIMEOUT_MS,
  );

  it(
    'keeps its data and its password across a restart',
    async () => {
      expect(first).toBeDefined();
      database = await startEmbeddedPostgres(dataDir, logger);
      const second = new URL(database.url);
      expect(await passwordFile()).toBe(password);
      expect(second.password).toBe(first.password);
      expect(second.port).not.toBe('5432');

      expect(await query(database.url, 'SELECT id, note FROM survivor')).toEqual([
        { id: 1, note: 'written before the restart' },
      ]);
      expect(await runMigrations(database.url)).toEqual([]);
      expect(await query(database.url, 'SELECT name FROM migrations')).toHaveLength(applied.length);
    },
    TIMEOUT_MS,
  );

  it(
    'serves the real app: GET /health answers 200',
    async () => {
      expect(database).toBeDefined();
      const config = loadAppConfig({
        NODE_ENV: 'test',
        DATABASE_URL: database!.url,
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
});
