import type { Strategy } from 'passport';

export type StrategyOutcome<User> =
  { kind: 'success'; user: User } | { kind: 'fail'; info: unknown } | { kind: 'error'; error: unknown };

type StrategyActions<User> = Strategy & {
  success(user: User, info?: unknown): void;
  fail(info?: unknown): void;
  error(error: unknown): void;
  redirect(url: string): void;
  pass(): void;
};

/**
 * Runs a passport strategy against one request, the way passport's `authenticate` middleware does (a per-request
 * object whose success/fail/error settle the result), but without passport's process-wide strategy registry: each
 * app instance keeps its own strategy objects, wired to its own configuration and database.
 */
export function runStrategy<User>(strategy: Strategy, request: unknown): Promise<StrategyOutcome<User>> {
  return new Promise((resolve) => {
    const attempt = Object.create(strategy) as StrategyActions<User>;
    attempt.success = (user) => resolve({ kind: 'success', user });
    attempt.fail = (info) => resolve({ kind: 'fail', info });
    attempt.error = (error) => resolve({ kind: 'error', error });
    attempt.redirect = () => resolve({ kind: 'fail', info: 'redirect' });
    attempt.pass = () => resolve({ kind: 'fail', info: 'pass' });
    try {
      (attempt.authenticate as (this: unknown, req: unknown, options: object) => void).call(
        attempt,
        request,
        {},
      );
    } catch (error) {
      resolve({ kind: 'error', error });
    }
  });
}
