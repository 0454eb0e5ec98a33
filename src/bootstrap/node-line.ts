/**
 * Node.js lines that still run Tollgate after their end of life, each with the date it ended. The supported lines
 * are the ones `engines` in package.json names besides these.
 */
const PAST_END_OF_LIFE: Readonly<Record<string, string>> = { '20': '2026-04-30' };

/** The start-up warning for a Node.js version past its end of life, if `version` is one. */
export function endOfLifeWarning(version: string): string | undefined {
  const line = version.replace(/^v/, '').split('.')[0]!;
  const ended = PAST_END_OF_LIFE[line];
  return ended === undefined
    ? undefined
    : `Node.js ${line} reached its end of life on ${ended} and gets no security fixes: Tollgate still runs on ` +
        `${version} but supports Node.js 22, 24 and 26; move to one of them`;
}
