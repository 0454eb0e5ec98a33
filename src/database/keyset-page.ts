import type { PageRequest } from '../common/pagination/cursor-page.js';
import { raw, sql, type Sql } from './sql.js';

/** The columns a list is ordered by, newest first: a time and a unique tiebreaker. */
export interface KeysetColumns {
  /** A timestamptz column, qualified as the statement needs (`e.at`). */
  time: string;
  /** A unique column of the list (`e.seq`, `a.id`). */
  tiebreaker: string;
  tiebreakerType: 'uuid' | 'bigint';
}

/** The three pieces of a keyset page's statement: the SELECT item, the WHERE condition and the LIMIT clause. */
export interface KeysetPage {
  /** `… AS position`: the row's place, which the cursor of the next page names (cursor-page.ts). */
  position: Sql;
  /** Rows after the cursor's position; TRUE on the first page. */
  after: Sql;
  /** One row more than asked: it only tells whether another page follows (`toPage`). */
  limit: Sql;
}

/**
 * Keyset pagination over (time, tiebreaker) descending, for every paged list: a page costs an index range scan
 * whatever its depth, and rows inserted meanwhile neither repeat nor skip.
 */
export function keysetPage(columns: KeysetColumns, page: PageRequest): KeysetPage {
  const time = raw(columns.time);
  const tiebreaker = raw(columns.tiebreaker);
  return {
    position: sql`json_build_object('micros', (extract(epoch FROM ${time}) * 1000000)::bigint::text,
      'tiebreaker', ${tiebreaker}::text) AS position`,
    after: page.after
      ? sql`(${time}, ${tiebreaker}) < (timestamptz 'epoch' + ${page.after.micros}::bigint * interval '1 microsecond',
          ${page.after.tiebreaker}::${raw(columns.tiebreakerType)})`
      : sql`TRUE`,
    limit: sql`LIMIT ${page.limit + 1}`,
  };
}
