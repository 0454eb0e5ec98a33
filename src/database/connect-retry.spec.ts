import { retryConnecting } from './connect-retry.js';

const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
const full = Object.assign(new Error('sorry, too many clients already'), { code: '53300' });

/** A clock that moves only when the retry sleeps. */
function fakeClock(): { now: () => number; sleep: (ms: number) => Promise<void>; slept: number[] } {
  let time = 0;
  const slept: number[] = [];
  return {
    now: () => time,
    sleep: (ms) => {
      slept.push(ms);
      time += ms;
      return Promise.resolve();
    },
    slept,
  };
}

describe('retryConnecting', () => {
  it('retries connection failures with growing waits until the attempt succeeds, saying why each time', async () => {
    const clock = fakeClock();
    const failures = [refused, refused, full, full, refused];
    const reasons: string[] = [];
    const result = await retryConnecting(
      () => {
        const failure = failures.shift();
        return failure ? Promise.reject(failure) : Promise.resolve('connected');
      },
      { withinMs: 60_000, onRetry: ({ reason }) => reasons.push(reason), ...clock },
    );
    expect(result).toBe('connected');
    expect(reasons).toEqual([
      'unreachable',
      'unreachable',
      'too_many_connections',
      'too_many_connections',
      'unreachable',
    ]);
    // Jittered between half and all of a doubling delay.
    expect(clock.slept[0]).toBeGreaterThanOrEqual(125);
    expect(clock.slept[4]).toBeGreaterThanOrEqual(2000);
  });

  it('gives up once its time is spent, with the last failure', async () => {
    const clock = fakeClock();
    await expect(
      retryConnecting(() => Promise.reject(refused), {
        withinMs: 20_000,
        onRetry: () => undefined,
        ...clock,
      }),
    ).rejects.toBe(refused);
    expect(clock.now()).toBe(20_000);
  });

  it('does not retry other errors, nor anything when given no time', async () => {
    const clock = fakeClock();
    const syntax = Object.assign(new Error('syntax error'), { code: '42601' });
    await expect(
      retryConnecting(() => Promise.reject(syntax), { withinMs: 60_000, onRetry: () => undefined, ...clock }),
    ).rejects.toBe(syntax);
    await expect(
      retryConnecting(() => Promise.reject(refused), { withinMs: 0, onRetry: () => undefined, ...clock }),
    ).rejects.toBe(refused);
    expect(clock.slept).toEqual([]);
  });
});
