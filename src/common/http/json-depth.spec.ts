import { exceedsDepth, MAX_JSON_DEPTH } from './json-depth.js';

describe('exceedsDepth', () => {
  const nested = (levels: number): unknown => JSON.parse('['.repeat(levels) + ']'.repeat(levels));

  it('accepts ordinary bodies and refuses deep ones', () => {
    expect(exceedsDepth({ address: '0x1', scopes: ['READ_ONLY'] })).toBe(false);
    expect(exceedsDepth(nested(MAX_JSON_DEPTH))).toBe(false);
    expect(exceedsDepth(nested(MAX_JSON_DEPTH + 1))).toBe(true);
    expect(exceedsDepth(nested(100_000))).toBe(true);
    expect(exceedsDepth('text')).toBe(false);
  });
});
