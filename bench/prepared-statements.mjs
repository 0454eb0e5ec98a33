// What running the hot statements unnamed costs (as behind a transaction pooler, DATABASE_POOLER=transaction)
// against named prepared statements (the default): three statement shapes the request paths run, one connection,
// sequential, alternating the two modes over ROUNDS rounds of N statements each; prints µs per statement per round.
//   npm run build && DATABASE_URL=postgres://…/scratch node bench/prepared-statements.mjs
// DATABASE_URL: a database of its own (the migrations are applied to it). N (default 3000), ROUNDS (default 5).
import pg from 'pg';
import { poolConfig } from '../dist/src/database/data-source.js';
import { DatabaseAvailability } from '../dist/src/database/database-availability.js';
import { Database } from '../dist/src/database/database.service.js';
import { runMigrations } from '../dist/src/database/migrate.js';
import { sql } from '../dist/src/database/sql.js';

const url = process.env.DATABASE_URL;
if (!url) throw new Error('set DATABASE_URL to a scratch database');
const N = Number(process.env.N ?? 3000);
const ROUNDS = Number(process.env.ROUNDS ?? 5);
await runMigrations(url);

const cases = {
  'API key by digest': (db) =>
    db.runPrepared(
      'bench_key',
      sql`SELECT id, owner_address, scopes, revoked_at, expires_at FROM api_keys WHERE key_digest = ${Buffer.alloc(32, 7)}`,
    ),
  'invalidation read': (db) =>
    db.runPrepared(
      'bench_invalidations',
      sql`SELECT s.snapshot, i.topic, i.key FROM (SELECT pg_current_snapshot()::text AS snapshot) s
        LEFT JOIN cache_invalidations i ON NOT ${false}::boolean
          AND (i.xid >= ${'0'}::bigint OR i.xid = ANY (${[]}::bigint[]))`,
    ),
  'row lock in a transaction': (db) =>
    db.transaction((tx) =>
      tx.runPrepared(
        'bench_lock',
        sql`SELECT l.*, clock_timestamp() AS now FROM (SELECT 1) AS one
          LEFT JOIN LATERAL (SELECT * FROM subscriptions WHERE address = ${'0xabc'} FOR UPDATE) AS l ON true`,
      ),
    ),
};

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
for (const [name, run] of Object.entries(cases)) {
  const perMode = { named: [], unnamed: [] };
  for (let round = 0; round < ROUNDS; round++) {
    for (const mode of round % 2 ? ['unnamed', 'named'] : ['named', 'unnamed']) {
      const pooler = mode === 'named' ? 'none' : 'transaction';
      // A direct connection either way: only the statements differ.
      const pool = new pg.Pool(poolConfig({ url, poolSize: 1 }));
      const db = new Database(pool, new DatabaseAvailability(), { pooler });
      for (let i = 0; i < 200; i++) await run(db);
      const started = performance.now();
      for (let i = 0; i < N; i++) await run(db);
      perMode[mode].push(Math.round(((performance.now() - started) * 1000) / N));
      await pool.end();
    }
  }
  console.log(
    `${name}: named ${perMode.named.join(', ')} µs (median ${median(perMode.named)}); ` +
      `unnamed ${perMode.unnamed.join(', ')} µs (median ${median(perMode.unnamed)})`,
  );
}
