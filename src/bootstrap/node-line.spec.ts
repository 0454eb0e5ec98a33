import { endOfLifeWarning } from './node-line.js';

describe('endOfLifeWarning', () => {
  it('warns on Node.js 20, naming the date and the supported lines', () => {
    expect(endOfLifeWarning('v20.19.0')).toBe(
      'Node.js 20 reached its end of life on 2026-04-30 and gets no security fixes: Tollgate still runs on ' +
        'v20.19.0 but supports Node.js 22, 24 and 26; move to one of them',
    );
  });

  it.each(['v22.12.0', 'v24.21.0', 'v26.12.1', '26.0.0'])('is silent on %s', (version) => {
    expect(endOfLifeWarning(version)).toBeUndefined();
  });
});
