import type { Strategy, StrategyCreatedStatic } from 'passport';

/** How one strategy attempt ended: the user it authenticated, or passport's `fail` with the strategy's reason. */
export type StrategyOutcome<User> = { user: User } | { user?: undefined; reason: unknown };

/** One attempt: the registered strategy's behaviour, with the actions passport gives each attempt. */
interface Attempt extends StrategyCreatedStatic {
  authenticate(request: object): void;
}

/**
 * Runs one passport strategy once for a request, by passport's strategy protocol: an instance made from the
 * registered strategy, given `success`, `fail`, `error`, `pass` and `redirect`, then `authenticate(request)`. It is
 * what `passport.authenticate()` does for one strategy with a callback, without the middleware around it, which
 * costs a status read more than a speed trick must earn
 * (docs/decisions/2026-11-25-strategy-attempt-instead-of-authguard.md); the strategies themselves stay ordinary
 * `PassportStrategy` classes. `error` (a strategy's thrown 401 or 403, or a failure) rejects.
 */
export function attemptStrategy<User>(strategy: Strategy, request: object): Promise<StrategyOutcome<User>> {
  return new Promise((resolve, reject) => {
    const attempt = Object.create(strategy) as Attempt;
    attempt.success = (user) => resolve({ user: user as User });
    attempt.fail = (reason) => resolve({ reason });
    attempt.error = reject;
    // Session and redirect strategies only; none of this service's strategies calls them.
    attempt.pass = () => resolve({ reason: undefined });
    attempt.redirect = () => resolve({ reason: undefined });
    attempt.authenticate(request);
  });
}
