/** Deeper JSON is refused: no request of this API nests beyond a few levels, and deep trees exhaust the stack. */
export const MAX_JSON_DEPTH = 32;

/** Nesting depth of a parsed JSON value, measured without recursion, stopping once `limit` is exceeded. */
export function exceedsDepth(value: unknown, limit = MAX_JSON_DEPTH): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!;
    if (current === null || typeof current !== 'object') continue;
    if (depth >= limit) return true;
    for (const child of Object.values(current)) stack.push([child, depth + 1]);
  }
  return false;
}
