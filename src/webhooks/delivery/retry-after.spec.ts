import { parseRetryAfter } from './retry-after.js';

const now = Date.parse('2025-06-01T12:00:00Z');

describe('parseRetryAfter', () => {
  it.each([
    ['120', 120],
    ['0', 0],
    [' 30 ', 30],
    ['Sun, 01 Jun 2025 12:01:30 GMT', 90],
    ['Sunday, 01-Jun-25 12:00:10 GMT', 10],
    ['Sun Jun  1 12:00:05 2025', 5],
    ['Sun, 01 Jun 2025 12:00:00 GMT', 0],
    ['Sat, 31 May 2025 12:00:00 GMT', 0],
  ])('%j → %s', (header, expected) => {
    expect(parseRetryAfter(header, now)).toBe(expected);
  });

  it('rounds a date that is not on a whole second up', () => {
    expect(parseRetryAfter('Sun, 01 Jun 2025 12:00:02 GMT', now - 500)).toBe(3);
  });

  it.each([
    undefined,
    '',
    '   ',
    '-5',
    '1.5',
    'soon',
    '2025-06-01T12:00:00Z',
    '99999999999999999999',
    'Sun, 99 Jun 2025 12:00:00 GMT',
  ])('ignores %j', (header) => {
    expect(parseRetryAfter(header, now)).toBeNull();
  });

  it('reads the first of repeated headers', () => {
    expect(parseRetryAfter(['7', '9'], now)).toBe(7);
  });
});
