import { jest } from '@jest/globals';
import type { Database } from '../database/database.service.js';
import type { Sql } from '../database/sql.js';
import { InvalidationLog } from './invalidation-log.service.js';

interface Row {
  snapshot: string;
  topic: string | null;
  key: string | null;
}

/** A database whose invalidation reads the test answers one by one. */
class ScriptedDatabase {
  readonly reads: { params: unknown[]; answer: (rows: Row[]) => void; fail: (error: Error) => void }[] = [];

  runPrepared(_name: string, statement: Sql): Promise<{ rows: Row[]; rowCount: number }> {
    return new Promise((resolve, reject) => {
      this.reads.push({
        params: statement.values,
        answer: (rows) => resolve({ rows, rowCount: rows.length }),
        fail: reject,
      });
    });
  }
}

/** Long enough for a read the log has scheduled to start: reads start at most once a millisecond. */
const turn = (): Promise<void> => new Promise((resolve) => setTimeout(() => setImmediate(resolve), 3));
/** A snapshot's answer with no invalidation: everything below `xmax` ended but `xip`. */
const nothing = (xmax: string, xip: string[] = []): Row[] => [
  { snapshot: `${xip[0] ?? xmax}:${xmax}:${xip.join(',')}`, topic: null, key: null },
];

describe('InvalidationLog', () => {
  let db: ScriptedDatabase;
  let log: InvalidationLog;

  beforeEach(() => {
    db = new ScriptedDatabase();
    log = new InvalidationLog(db as unknown as Database);
  });

  it('answers the requests of one turn with one read, started after their tickets', async () => {
    const first = log.barrier();
    const second = log.barrier();
    await turn();
    expect(db.reads).toHaveLength(1);
    db.reads[0]!.answer(nothing('100'));
    await expect(Promise.all([first, second])).resolves.toEqual([true, true]);
  });

  it('trusts the caches only once a read has succeeded, and not after one fails', async () => {
    expect(log.trusted).toBe(false);
    const first = log.barrier();
    await turn();
    db.reads[0]!.answer(nothing('100'));
    await first;
    expect(log.trusted).toBe(true);
    const failing = log.barrier();
    await turn();
    db.reads[1]!.fail(new Error('connection terminated'));
    await failing;
    expect(log.trusted).toBe(false);
  });

  it('never lets a read that began before the call vouch for it', async () => {
    const early = log.barrier();
    await turn();
    const late = log.barrier();
    await turn();
    let lateSettled = false;
    void late.then(() => (lateSettled = true));
    db.reads[0]!.answer(nothing('100'));
    await early;
    await turn();
    expect(lateSettled).toBe(false);
    expect(db.reads).toHaveLength(2);
    db.reads[1]!.answer(nothing('100'));
    await expect(late).resolves.toBe(true);
  });

  it('keeps one read under way; the requests arriving during it share the next', async () => {
    const barriers = [log.barrier()];
    await turn();
    barriers.push(log.barrier());
    await turn();
    barriers.push(log.barrier());
    await turn();
    expect(db.reads).toHaveLength(1);
    db.reads[0]!.answer(nothing('100'));
    await turn();
    await turn();
    expect(db.reads).toHaveLength(2);
    db.reads[1]!.answer(nothing('101'));
    await expect(Promise.all(barriers)).resolves.toEqual([true, true, true]);
    await turn();
    expect(db.reads).toHaveLength(2);
  });

  it('starts reads at most once a millisecond, the first one on the next turn', async () => {
    jest.useFakeTimers();
    try {
      const first = log.barrier();
      jest.advanceTimersToNextTimer();
      expect(db.reads).toHaveLength(1);
      db.reads[0]!.answer(nothing('100'));
      await first;
      const second = log.barrier();
      jest.advanceTimersByTime(0.5);
      expect(db.reads).toHaveLength(1);
      jest.advanceTimersByTime(0.6);
      expect(db.reads).toHaveLength(2);
      db.reads[1]!.answer(nothing('101'));
      await expect(second).resolves.toBe(true);
    } finally {
      jest.useRealTimers();
    }
  });

  it('applies invalidations, then asks only for transactions that ended since the last snapshot', async () => {
    const dropped: string[] = [];
    log.onInvalidation('api_key', (key) => dropped.push(key));
    const first = log.barrier();
    await turn();
    expect(db.reads[0]!.params).toEqual([true, '0', []]);
    db.reads[0]!.answer(nothing('100', ['90', '97']));
    await first;
    const second = log.barrier();
    await turn();
    // Those still running at the first snapshot, and those that began after it.
    expect(db.reads[1]!.params).toEqual([false, '100', ['90', '97']]);
    db.reads[1]!.answer([
      { snapshot: '90:105:90', topic: 'api_key', key: 'k1' },
      { snapshot: '90:105:90', topic: 'jti', key: 'j1' },
    ]);
    await second;
    expect(dropped).toEqual(['k1']);
    // Transaction 90, still running, is asked for again; 97 ended and was applied, and is not.
    void log.barrier();
    await turn();
    expect(db.reads[2]!.params).toEqual([false, '105', ['90']]);
  });

  it('distrusts the caches when a read fails, and starts over from a fresh snapshot', async () => {
    let resets = 0;
    log.onReset(() => resets++);
    const first = log.barrier();
    await turn();
    db.reads[0]!.answer(nothing('100'));
    await first;
    const failing = log.barrier();
    await turn();
    db.reads[1]!.fail(new Error('connection terminated'));
    await expect(failing).resolves.toBe(false);
    expect(resets).toBe(1);
    const again = log.barrier();
    await turn();
    expect(db.reads[2]!.params).toEqual([true, '0', []]);
    db.reads[2]!.answer(nothing('120'));
    await expect(again).resolves.toBe(true);
  });
});
