import { jest } from '@jest/globals';
import { Writable } from 'node:stream';
import type { Logger } from 'pino';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { createLogger, requestLogHook } from './logger.js';

function capture(level: string): { logger: Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  return { logger: createLogger(level, stream), lines };
}

describe('requestLogHook', () => {
  it('writes the request line unredacted, while the logger it comes from still redacts', () => {
    const { logger, lines } = capture('info');
    const done = jest.fn();
    requestLogHook(logger).call(
      undefined as never,
      { id: 'r-1', method: 'GET', url: '/health' } as FastifyRequest,
      { statusCode: 200, elapsedTime: 1.234 } as FastifyReply,
      done,
    );
    expect(done).toHaveBeenCalledTimes(1);
    logger.info({ headers: { authorization: 'Bearer tg_secret' } }, 'other');
    expect(lines).toEqual([
      expect.objectContaining({
        requestId: 'r-1',
        method: 'GET',
        url: '/health',
        statusCode: 200,
        durationMs: 1.23,
        msg: 'request completed',
      }),
      expect.objectContaining({ headers: { authorization: '[redacted]' }, msg: 'other' }),
    ]);
  });
});

describe('createLogger', () => {
  it('writes every line queued before the process exits, even on process.exit right after logging', async () => {
    const { execFile } = await import('node:child_process');
    const { promisify } = await import('node:util');
    const logger = new URL('../../../dist/src/common/logging/logger.js', import.meta.url).href;
    const script = `import { createLogger } from ${JSON.stringify(logger)};
      const log = createLogger('info');
      for (let i = 0; i < 2000; i++) log.info({ i }, 'line');
      process.exit(3);`;
    const run = promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], {
      maxBuffer: 1 << 26,
    });
    const exit = new Promise<number | null>((resolve) => run.child.once('exit', resolve));
    const { stdout } = await run.catch((error: { stdout: string }) => error);
    expect(await exit).toBe(3);
    const lines = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { i: number });
    expect(lines.map((line) => line.i)).toEqual([...Array(2000).keys()]);
  });
});
