import { jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { DatabaseAvailability } from './database-availability.js';

describe('DatabaseAvailability', () => {
  let lines: string[];
  beforeEach(() => {
    lines = [];
    jest
      .spyOn(Logger.prototype, 'error')
      .mockImplementation((message: unknown) => void lines.push(`down ${String(message)}`));
    jest
      .spyOn(Logger.prototype, 'log')
      .mockImplementation((message: unknown) => void lines.push(`up ${String(message)}`));
  });
  afterEach(() => jest.restoreAllMocks());

  it('logs an outage once when it starts and once when it ends, however many statements fail meanwhile', () => {
    const availability = new DatabaseAvailability();
    const before = availability.generation;
    for (let i = 0; i < 50; i++) availability.lost(new Error('Connection terminated unexpectedly'), before);
    expect(availability.available).toBe(false);
    const during = availability.generation;
    for (let i = 0; i < 50; i++) availability.lost(new Error('connect ECONNREFUSED'), during);
    availability.answered(during);
    availability.answered(availability.generation);
    expect(availability.available).toBe(true);
    expect(lines.map((line) => line.split(' ')[0])).toEqual(['down', 'up']);
    expect(lines[0]).toContain('(Connection terminated unexpectedly)');
  });

  it('ignores outcomes of statements that started before the last change of state', () => {
    const availability = new DatabaseAvailability();
    const beforeOutage = availability.generation;
    availability.lost(new Error('terminating connection due to administrator command'), beforeOutage);
    // A statement under way when the server stopped still succeeds: the outage goes on.
    availability.answered(beforeOutage);
    expect(availability.available).toBe(false);
    const duringOutage = availability.generation;
    availability.answered(duringOutage);
    // One that waited through the outage fails after the server is back: it is not a new outage.
    availability.lost(new Error('Connection terminated unexpectedly'), duringOutage);
    expect(availability.available).toBe(true);
    expect(lines).toHaveLength(2);
  });

  it('logs slot exhaustion as such, at most once per interval with a count, and not as an outage', () => {
    jest.useFakeTimers({ now: 1_000_000 });
    try {
      const availability = new DatabaseAvailability();
      const refused = Object.assign(new Error('sorry, too many clients already'), { code: '53300' });
      for (let i = 0; i < 30; i++) availability.lost(refused);
      expect(availability.available).toBe(true);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain('no connection slot left');
      expect(lines[0]).not.toContain('cannot be reached');
      jest.advanceTimersByTime(10_000);
      availability.lost(refused);
      expect(lines).toHaveLength(2);
      expect(lines[1]).toContain('30 refused since the last such line');
      availability.lost(new Error('connect ECONNREFUSED'));
      expect(availability.failures).toEqual({ unreachable: 1, too_many_connections: 31 });
    } finally {
      jest.useRealTimers();
    }
  });
});
