import { jest } from '@jest/globals';
import { Writable } from 'node:stream';
import { pino, type Logger } from 'pino';
import { requestLoggerFactory } from './logger.js';

function capture(level: string): { logger: Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  return { logger: pino({ level }, stream), lines };
}

describe('requestLoggerFactory', () => {
  it('binds the request id to every line a request writes', async () => {
    const { logger, lines } = capture('info');
    const child = jest.spyOn(logger, 'child');
    const requestLog = requestLoggerFactory(logger, { requestId: 'r-1' }, {});
    expect(child).not.toHaveBeenCalled();
    requestLog.info({ statusCode: 200 }, 'request completed');
    requestLog.warn('slow');
    await new Promise((resolve) => setImmediate(resolve));
    expect(child).toHaveBeenCalledTimes(1);
    expect(lines).toEqual([
      expect.objectContaining({ requestId: 'r-1', statusCode: 200, msg: 'request completed', level: 30 }),
      expect.objectContaining({ requestId: 'r-1', msg: 'slow', level: 40 }),
    ]);
  });

  it('makes no child for lines below the level', () => {
    const { logger, lines } = capture('warn');
    const child = jest.spyOn(logger, 'child');
    const requestLog = requestLoggerFactory(logger, { requestId: 'r-2' }, {});
    requestLog.info('dropped');
    requestLog.debug('dropped');
    expect(requestLog.isLevelEnabled('info')).toBe(false);
    expect(child).not.toHaveBeenCalled();
    expect(lines).toEqual([]);
  });

  it('makes the real child at once for a per-route level', () => {
    const { logger } = capture('warn');
    const requestLog = requestLoggerFactory(logger, { requestId: 'r-3' }, { level: 'debug' });
    expect(requestLog.level).toBe('debug');
  });
});
