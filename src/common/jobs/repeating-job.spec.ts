import { RepeatingJob } from './repeating-job.js';

describe('RepeatingJob', () => {
  it('never overlaps runs, and stop waits for the run under way and schedules none after it', async () => {
    let active = 0;
    let most = 0;
    let runs = 0;
    let finish: (() => void) | undefined;
    const job = new RepeatingJob(async () => {
      runs++;
      active++;
      most = Math.max(most, active);
      await new Promise<void>((resolve) => (finish = resolve));
      active--;
    }, 1);
    job.start();
    await new Promise((resolve) => setTimeout(resolve, 30));
    // The first run is still under way: no second one started beside it, however many intervals passed.
    expect(runs).toBe(1);
    let stopped = false;
    const stopping = job.stop().then(() => (stopped = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(stopped).toBe(false);
    finish!();
    await stopping;
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect({ runs, most, active }).toEqual({ runs: 1, most: 1, active: 0 });
  });

  it('runs again after each run ends', async () => {
    let runs = 0;
    const job = new RepeatingJob(async () => {
      runs++;
    }, 1);
    job.start();
    while (runs < 3) await new Promise((resolve) => setTimeout(resolve, 5));
    await job.stop();
    const after = runs;
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(runs).toBe(after);
  });
});
