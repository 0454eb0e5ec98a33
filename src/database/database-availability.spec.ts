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
});
