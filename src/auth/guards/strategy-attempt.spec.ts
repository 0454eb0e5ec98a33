import { randomBytes } from 'node:crypto';
import { Strategy as CustomStrategy } from 'passport-custom';
import { ExtractJwt, Strategy as JwtStrategy } from 'passport-jwt';
import jwt from 'jsonwebtoken';
import type { Strategy } from 'passport';
import { attemptStrategy } from './strategy-attempt.js';

// Made for this run: a secret written in the repository would count as published (src/config/secret-strength.ts).
const secret = randomBytes(32).toString('base64url');

function customStrategy(verify: (request: { id: string }) => unknown): Strategy {
  return new CustomStrategy((request, done) => {
    try {
      const user = verify(request as unknown as { id: string });
      done(null, user as Express.User);
    } catch (error) {
      done(error);
    }
  });
}

describe('attemptStrategy', () => {
  it('resolves with the user a strategy authenticates, from the request it was given', async () => {
    const strategy = customStrategy((request) => ({ id: request.id }));
    await expect(attemptStrategy(strategy, { id: 'a' })).resolves.toEqual({ user: { id: 'a' } });
  });

  it("resolves with passport's failure reason when a strategy fails", async () => {
    const strategy = customStrategy(() => null);
    const outcome = await attemptStrategy(strategy, { id: 'a' });
    expect(outcome).toEqual({ reason: undefined });
    expect('reason' in outcome).toBe(true);
  });

  it('rejects with what a strategy reports as an error', async () => {
    const refused = new Error('refused');
    const strategy = customStrategy(() => {
      throw refused;
    });
    await expect(attemptStrategy(strategy, { id: 'a' })).rejects.toBe(refused);
  });

  it("keeps passport-jwt's reason: an expired token fails with TokenExpiredError", async () => {
    const strategy = new JwtStrategy(
      { jwtFromRequest: ExtractJwt.fromAuthHeaderAsBearerToken(), secretOrKey: secret },
      (payload: object, done: (error: unknown, user?: object) => void) => done(null, payload),
    );
    const expired = jwt.sign({ sub: 'a', exp: Math.floor(Date.now() / 1000) - 60 }, secret);
    const outcome = await attemptStrategy(strategy, { headers: { authorization: `Bearer ${expired}` } });
    expect(outcome.user).toBeUndefined();
    expect((outcome as { reason: Error }).reason.name).toBe('TokenExpiredError');
    const valid = jwt.sign({ sub: 'b' }, secret);
    const accepted = await attemptStrategy<{ sub: string }>(strategy, {
      headers: { authorization: `Bearer ${valid}` },
    });
    expect(accepted.user?.sub).toBe('b');
  });

  it('gives every attempt its own actions, so concurrent attempts do not mix', async () => {
    const strategy = customStrategy((request) => ({ id: request.id }));
    const outcomes = await Promise.all(['a', 'b', 'c'].map((id) => attemptStrategy(strategy, { id })));
    expect(outcomes.map((outcome) => (outcome.user as { id: string }).id)).toEqual(['a', 'b', 'c']);
  });
});
