import { ApiError } from '../errors/api-error.js';
import { decodeCursor, encodeCursor, pageRequest, toPage } from './cursor-page.js';

const ID = '5b0f6c1e-2d4a-4f7e-9a41-3f1c2b7d8e90';

describe('cursors', () => {
  it('round-trips a position of its own list', () => {
    const position = { micros: '1795311000123456', tiebreaker: ID };
    expect(decodeCursor('api_keys', encodeCursor('api_keys', position))).toEqual(position);
    const history = { micros: '1795311000123456', tiebreaker: '42' };
    expect(decodeCursor('subscription_history', encodeCursor('subscription_history', history))).toEqual(
      history,
    );
  });

  it.each([
    ['garbage', 'not-a-cursor'],
    ['another list', encodeCursor('webhook_attempts', { micros: '1', tiebreaker: ID })],
    ['a bad tiebreaker', Buffer.from(JSON.stringify(['api_keys', '1', "1' OR 1=1"])).toString('base64url')],
    ['a bad time', Buffer.from(JSON.stringify(['api_keys', '1e9', ID])).toString('base64url')],
    ['another shape', Buffer.from(JSON.stringify({ list: 'api_keys' })).toString('base64url')],
    ['a time past year 9999', cursorOf('api_keys', '253402300800000000', ID)],
    ['a time beyond 64 bits', cursorOf('api_keys', '9999999999999999999', ID)],
  ])('refuses %s with 400 invalid_cursor', (_name, cursor) => {
    expectInvalid(() => decodeCursor('api_keys', cursor));
  });

  it.each([
    ['an id beyond bigint', cursorOf('subscription_history', '1', '9999999999999999999')],
    ['an id just past bigint', cursorOf('subscription_history', '1', '9223372036854775808')],
    ['a negative id', cursorOf('subscription_history', '1', '-1')],
    ['an interval for a time', cursorOf('subscription_history', '1 day', '1')],
  ])('refuses a history cursor with %s', (_name, cursor) => {
    expectInvalid(() => decodeCursor('subscription_history', cursor));
  });

  it('accepts the largest values PostgreSQL takes', () => {
    const position = { micros: '253402300799999999', tiebreaker: '9223372036854775807' };
    expect(decodeCursor('subscription_history', encodeCursor('subscription_history', position))).toEqual(
      position,
    );
  });

  function cursorOf(list: string, micros: string, tiebreaker: string): string {
    return Buffer.from(JSON.stringify([list, micros, tiebreaker])).toString('base64url');
  }

  function expectInvalid(decode: () => unknown): void {
    let error: unknown;
    try {
      decode();
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ code: 'invalid_cursor' });
    expect((error as ApiError).getStatus()).toBe(400);
  }

  it('asks for a page only when limit or cursor is sent', () => {
    expect(pageRequest('api_keys', {})).toBeUndefined();
    expect(pageRequest('api_keys', { limit: 5 })).toEqual({ limit: 5, after: undefined });
    const cursor = encodeCursor('api_keys', { micros: '7', tiebreaker: ID });
    expect(pageRequest('api_keys', { cursor })).toEqual({
      limit: 50,
      after: { micros: '7', tiebreaker: ID },
    });
  });

  it('ends a page at its last item when one more row was fetched, and nowhere on the last page', () => {
    const rows = [1, 2, 3].map((n) => ({ n, position: { micros: String(n), tiebreaker: ID } }));
    expect(toPage(rows, 2)).toEqual({ items: [{ n: 1 }, { n: 2 }], next: { micros: '2', tiebreaker: ID } });
    expect(toPage(rows, 3)).toEqual({ items: [{ n: 1 }, { n: 2 }, { n: 3 }], next: undefined });
  });
});
