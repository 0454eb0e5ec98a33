import { Inject, Injectable, Optional } from '@nestjs/common';
import type { Pool, PoolClient, QueryConfig, QueryResult, QueryResultRow } from 'pg';
import { isConnectionFailure } from './connection-failure.js';
import { STATEMENT_TIMEOUT_MS, type DatabaseConnectionOptions } from './data-source.js';
import { DatabaseAvailability } from './database-availability.js';
import { DatabaseErrors } from './database.errors.js';
import { PG_POOL } from './pg-pool.js';
import { raw, type Sql } from './sql.js';

export interface SqlResult<Row> {
  rows: Row[];
  /** Rows inserted, updated or deleted (or returned, for SELECT). */
  rowCount: number;
}

/** Runs SQL on one connection: the pool, or a transaction's client. */
export interface SqlExecutor {
  /** Runs a statement built with the `sql` tag (src/database/sql.ts). */
  run<Row extends QueryResultRow = QueryResultRow>(statement: Sql): Promise<SqlResult<Row>>;
  /**
   * `run` as a named prepared statement: parsed and planned once per connection instead of on every call. For
   * fixed SQL on hot paths only (each name must always carry the same text; only the values may change). Behind a
   * transaction pooler it is `run`: a statement prepared on one server connection is missing on the next, and
   * PgBouncer before 1.21 does not track them.
   */
  runPrepared<Row extends QueryResultRow = QueryResultRow>(
    name: string,
    statement: Sql,
  ): Promise<SqlResult<Row>>;
}

/** What runs a query: the pool, or a transaction's client. */
interface QueryRunner {
  query<Row extends QueryResultRow>(config: QueryConfig): Promise<QueryResult<Row>>;
}

/** The token of how the pool connects (its `DatabaseConnectionOptions`); PostgreSQL itself when not provided. */
export const DATABASE_OPTIONS = Symbol('DATABASE_OPTIONS');

export type DatabaseOptions = Pick<DatabaseConnectionOptions, 'pooler' | 'statementTimeoutMs'>;

/**
 * An executor on `runner`: plain statements, and named ones prepared once per connection (unless `named` is false).
 * A connection-level failure becomes 503 `database_unavailable`; every outcome tells `availability` whether the
 * database answers.
 */
function executorOn(runner: QueryRunner, availability: DatabaseAvailability, named: boolean): SqlExecutor {
  const run = async <Row extends QueryResultRow>(config: QueryConfig): Promise<SqlResult<Row>> => {
    const generation = availability.generation;
    let result: QueryResult<Row>;
    try {
      result = await runner.query<Row>(config);
    } catch (error) {
      throw unavailableOr(error, availability, generation);
    }
    availability.answered(generation);
    return { rows: result.rows, rowCount: result.rowCount ?? 0 };
  };
  return {
    run: (statement) => run({ text: statement.text, values: statement.values }),
    runPrepared: (name, statement) =>
      run({ ...(named && { name }), text: statement.text, values: statement.values }),
  };
}

/** A connection-level failure as the API's 503 (recorded as an outage); any other error as it is. */
function unavailableOr(
  error: unknown,
  availability: DatabaseAvailability,
  generation: number,
  committing = false,
): unknown {
  if (!isConnectionFailure(error)) return error;
  availability.lost(error, generation);
  return committing ? DatabaseErrors.commitOutcomeUnknown() : DatabaseErrors.unavailable(error);
}

/**
 * Thin access to PostgreSQL for the repositories. TypeORM owns the schema (entities, migrations); queries go
 * straight to the `pg` pool, which gives predictable result shapes for `UPDATE … RETURNING` and keeps the hot
 * paths free of the ORM's per-query overhead.
 *
 * Nothing here outlives a transaction on its connection (no session `SET`, advisory lock, `LISTEN` or temporary
 * table), so a transaction pooler may hand each transaction to another server connection. What needs a session
 * (the process's presence lock, `LISTEN`) is on `DatabaseSession`'s own connection.
 */
/**
 * Told of each commit that wrote cache invalidations (see {@link Database.watchInvalidatingCommits}), with the
 * transaction's id; the transaction's caller gets its answer when the returned promise settles.
 */
export interface InvalidatingCommitWatcher {
  /** Notified, in the committing transaction, when it wrote invalidations. */
  channel: string;
  /** The tables whose triggers write invalidations: a statement run outside a transaction that writes one gets one. */
  tables: readonly string[];
  committed(xid: string): Promise<void>;
}

/** Matches a statement that inserts into, updates or deletes from one of `tables` (quoted or not, any case). */
export function writesOf(tables: readonly string[]): RegExp {
  const names = tables.map((table) => `"?${table}"?`).join('|');
  return new RegExp(`\\b(?:INSERT\\s+INTO|UPDATE|DELETE\\s+FROM)\\s+(?:${names})(?![\\w"])`, 'i');
}

@Injectable()
export class Database implements SqlExecutor {
  private readonly onPool: SqlExecutor;
  private watcher: InvalidatingCommitWatcher | undefined;
  /** With a watcher: whether a statement writes one of its tables. */
  private writesWatched: RegExp | undefined;
  /** With a watcher: the commit, preceded in the same round trip by the check for invalidations and the notify. */
  private finish = 'COMMIT';
  private readonly named: boolean;
  /** What opens a transaction: behind a transaction pooler it also sets the statement timeout, in the same trip. */
  private readonly begin: string;

  constructor(
    @Inject(PG_POOL) private readonly pool: Pool,
    private readonly availability: DatabaseAvailability,
    @Optional() @Inject(DATABASE_OPTIONS) options: DatabaseOptions = {},
  ) {
    const { pooler = 'none', statementTimeoutMs = STATEMENT_TIMEOUT_MS } = options;
    this.named = pooler === 'none';
    this.onPool = executorOn(pool, availability, this.named);
    // One simple-protocol message, one round trip: SET LOCAL lasts until this transaction ends, on whichever server
    // connection the pooler gave it.
    this.begin =
      pooler === 'none' ? 'BEGIN' : `BEGIN; SET LOCAL statement_timeout = ${Math.trunc(statementTimeoutMs)}`;
  }

  run<Row extends QueryResultRow = QueryResultRow>(statement: Sql): Promise<SqlResult<Row>> {
    if (this.writesWatched?.test(statement.text)) return this.transaction((tx) => tx.run<Row>(statement));
    return this.onPool.run<Row>(statement);
  }

  runPrepared<Row extends QueryResultRow = QueryResultRow>(
    name: string,
    statement: Sql,
  ): Promise<SqlResult<Row>> {
    if (this.writesWatched?.test(statement.text)) {
      return this.transaction((tx) => tx.runPrepared<Row>(name, statement));
    }
    return this.onPool.runPrepared<Row>(name, statement);
  }

  /**
   * From now on, a transaction that wrote cache invalidations (rows of `cache_invalidations`, written by the
   * tables' triggers) notifies `watcher.channel` as it commits, and answers its caller only once
   * `watcher.committed` has settled: the writer waits for what the cache room requires of a change (every live
   * instance has applied it, CACHE_COHERENCE=acknowledged). Other transactions are unchanged but for one index probe
   * in their commit's round trip. A statement run on the pool that writes one of `watcher.tables` runs in a
   * transaction of its own, so no write path has to remember to open one.
   */
  watchInvalidatingCommits(watcher: InvalidatingCommitWatcher): void {
    this.watcher = watcher;
    this.writesWatched = writesOf(watcher.tables);
    this.finish =
      `SELECT xid::text AS xid, pg_notify('${watcher.channel}', '') FROM cache_invalidations ` +
      'WHERE xid = pg_current_xact_id_if_assigned()::text::bigint LIMIT 1; COMMIT';
  }

  /** Runs `work` in one transaction on one connection; commits when it resolves, rolls back when it throws. */
  async transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    const watcher = this.watcher;
    const { result, invalidated } = await this.runTransaction(work);
    // After the connection went back to the pool: the wait holds none.
    if (invalidated !== undefined) await watcher?.committed(invalidated);
    return result;
  }

  private async runTransaction<T>(
    work: (tx: SqlExecutor) => Promise<T>,
  ): Promise<{ result: T; invalidated: string | undefined }> {
    const generation = this.availability.generation;
    let client: PoolClient;
    try {
      client = await this.pool.connect();
    } catch (error) {
      throw unavailableOr(error, this.availability, generation);
    }
    let broken = false;
    // Marks the connection as not to be reused (the pool's own listener, added on connect, records the outage).
    const onError = (): void => {
      broken = true;
    };
    client.on('error', onError);
    const tx = executorOn(client, this.availability, this.named);
    try {
      await tx.run(raw(this.begin));
      const result = await work(tx);
      const committing = this.availability.generation;
      let invalidated: string | undefined;
      try {
        // Several statements in one simple-protocol message answer with one result each.
        const outcome = (await client.query(this.finish)) as QueryResult | QueryResult[];
        if (Array.isArray(outcome)) invalidated = (outcome[0]!.rows[0] as { xid: string } | undefined)?.xid;
      } catch (error) {
        throw unavailableOr(error, this.availability, committing, true);
      }
      return { result, invalidated };
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {
        broken = true;
      });
      throw error;
    } finally {
      client.off('error', onError);
      client.release(broken);
    }
  }
}
