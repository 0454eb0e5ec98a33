import type { CacheTopic } from './cache-topics.js';

export interface InvalidationTriggerOptions {
  /** The table whose rows a cache serves. */
  table: string;
  /** The topic the cache listens under (CACHE_TOPICS). */
  topic: CacheTopic;
  /** The cache key of a row as an SQL expression over `row` ('OLD' or 'NEW'), e.g. `${row}."address"`. */
  key: (row: 'OLD' | 'NEW') => string;
  /**
   * The columns the cached answer depends on: an update that changes none of them writes no invalidation (a
   * last-use time, say). Default: every update invalidates.
   */
  watched?: readonly string[];
}

export interface InvalidationTrigger {
  /** The statements a migration's `up` runs, in order. */
  up: string[];
  /** The statements its `down` runs, in order. */
  down: string[];
}

/**
 * The trigger through which a table publishes its cache invalidations (see InvalidationLog), for a migration to
 * run: any insert, update or delete writes `invalidate_cache(topic, key)` in the changing transaction, for the old
 * row's key and, when it differs, the new row's. Write paths then cannot forget to invalidate.
 */
export function invalidationTrigger({
  table,
  topic,
  key,
  watched,
}: InvalidationTriggerOptions): InvalidationTrigger {
  const fn = `${table}_invalidate`;
  const columns = (row: 'OLD' | 'NEW'): string => watched!.map((column) => `${row}."${column}"`).join(', ');
  const unchanged = watched?.length
    ? `
                IF TG_OP = 'UPDATE' AND (${columns('OLD')}) IS NOT DISTINCT FROM (${columns('NEW')}) THEN
                    RETURN NULL;
                END IF;`
    : '';
  return {
    up: [
      `
            CREATE FUNCTION "${fn}"() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN${unchanged}
                IF TG_OP <> 'INSERT' THEN
                    PERFORM "invalidate_cache"('${topic}', (${key('OLD')})::text);
                END IF;
                IF TG_OP = 'INSERT' OR (TG_OP = 'UPDATE' AND (${key('NEW')}) IS DISTINCT FROM (${key('OLD')})) THEN
                    PERFORM "invalidate_cache"('${topic}', (${key('NEW')})::text);
                END IF;
                RETURN NULL;
            END
            $$
        `,
      `
            CREATE TRIGGER "tr_${fn}" AFTER INSERT OR UPDATE OR DELETE ON "${table}"
            FOR EACH ROW EXECUTE FUNCTION "${fn}"()
        `,
    ],
    down: [`DROP TRIGGER "tr_${fn}" ON "${table}"`, `DROP FUNCTION "${fn}"()`],
  };
}
