import { bodyProblem, MAX_JSON_DEPTH } from './request-body.js';

describe('bodyProblem', () => {
  const nested = (levels: number): unknown => JSON.parse('['.repeat(levels) + ']'.repeat(levels));
  const codeOf = (body: unknown) => bodyProblem(body)?.code;

  it('accepts no body and ordinary objects', () => {
    expect(bodyProblem(undefined)).toBeUndefined();
    expect(bodyProblem({})).toBeUndefined();
    expect(bodyProblem({ address: '0x1', scopes: ['READ_ONLY'], message: 'line\nline' })).toBeUndefined();
  });

  it('refuses null, arrays and scalars', () => {
    for (const body of [null, [], [{}], 'text', '', 0, 1.5, true, false]) {
      expect(codeOf(body)).toBe('body_not_object');
    }
  });

  it('refuses bodies nested deeper than the limit', () => {
    expect(bodyProblem({ a: nested(MAX_JSON_DEPTH - 1) })).toBeUndefined();
    expect(codeOf({ a: nested(MAX_JSON_DEPTH) })).toBe('body_too_deep');
    expect(codeOf({ a: nested(100_000) })).toBe('body_too_deep');
  });

  it('refuses NUL in any string or key, naming the field', () => {
    const problem = bodyProblem({ webhook: { events: ['ok', 'a\u0000b'] } });
    expect(problem?.code).toBe('validation_failed');
    expect(problem?.details).toEqual({
      fields: [{ field: 'webhook.events[1]', message: 'webhook.events[1] must not contain NUL characters' }],
    });
    expect(codeOf({ label: '\u0000' })).toBe('validation_failed');
    expect(codeOf({ 'a\u0000': 1 })).toBe('validation_failed');
    expect(codeOf({ nested: { 'a\u0000': 1 } })).toBe('validation_failed');
  });
});
