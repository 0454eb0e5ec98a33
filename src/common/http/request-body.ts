import { ApiError } from '../errors/api-error.js';

/** Deeper JSON is refused: no request of this API nests beyond a few levels, and deep trees exhaust the stack. */
export const MAX_JSON_DEPTH = 32;

/**
 * What every JSON body must be, whatever the route: a plain object (`{}` at least), not `null`, an array or a
 * scalar; no deeper than {@link MAX_JSON_DEPTH}; and no NUL in any key or string, which PostgreSQL cannot store
 * in text. Checked once, before authentication and validation; fields get their own rules from their DTO.
 * Returns the error to answer with, or nothing. Walks without recursion, stopping at the first problem.
 */
export function bodyProblem(body: unknown): ApiError | undefined {
  if (body === undefined) return undefined;
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    return ApiError.badRequest('body_not_object', 'Request body must be a JSON object');
  }
  const stack: Array<[value: unknown, path: string, depth: number]> = [[body, '', 0]];
  while (stack.length > 0) {
    const [value, path, depth] = stack.pop()!;
    if (typeof value === 'string') {
      if (value.includes('\u0000')) return nulIn(path);
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    if (depth >= MAX_JSON_DEPTH) {
      return ApiError.badRequest('body_too_deep', `Request body nests deeper than ${MAX_JSON_DEPTH} levels`);
    }
    const isArray = Array.isArray(value);
    for (const [key, child] of Object.entries(value)) {
      if (key.includes('\u0000')) return nulIn(path || '(body)');
      const childPath = isArray ? `${path}[${key}]` : path ? `${path}.${key}` : key;
      stack.push([child, childPath, depth + 1]);
    }
  }
  return undefined;
}

function nulIn(field: string): ApiError {
  const message = `${field} must not contain NUL characters`;
  return ApiError.badRequest('validation_failed', message, { fields: [{ field, message }] });
}
