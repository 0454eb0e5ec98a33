import { getAddress } from 'viem';
import { LoginChallenges } from './login-challenges.js';

const settings = { domain: 'app.example.com', uri: 'https://app.example.com', chainId: 1, ttlSeconds: 600 };
const address = getAddress('0x52908400098527886e0f7030069857d2e4169ee7');
const other = getAddress('0x8ba1f109551bd432803012645ac136ddd64dba72');
const challenges = new LoginChallenges('a-test-secret-of-more-than-32-bytes-length', settings);
const at = (iso: string) => new Date(iso);

describe('LoginChallenges', () => {
  it('hands out slots of half the lifetime, each challenge living the full lifetime from its slot start', () => {
    expect(challenges.slotMs).toBe(300_000);
    const now = at('2026-11-22T01:07:30.000Z');
    const slot = challenges.currentSlot(now);
    expect(slot.toISOString()).toBe('2026-11-22T01:05:00.000Z');
    const challenge = challenges.challenge(address, slot, 0);
    expect(challenge.issuedAt.toISOString()).toBe('2026-11-22T01:05:00.000Z');
    expect(challenge.expiresAt.toISOString()).toBe('2026-11-22T01:15:00.000Z');
    expect(challenge.nonce).toMatch(/^[A-Za-z0-9]{24}$/);
    expect(challenge.message).toContain(`Nonce: ${challenge.nonce}\nIssued At: 2026-11-22T01:05:00.000Z`);
    expect(challenge.message).toContain('Expiration Time: 2026-11-22T01:15:00.000Z');
    expect(challenge.message).toContain(address);
  });

  it('lists the slots whose challenges are unexpired, newest first, and no expired one', () => {
    expect(challenges.liveSlots(at('2026-11-22T01:07:30.000Z')).map((d) => d.toISOString())).toEqual([
      '2026-11-22T01:05:00.000Z',
      '2026-11-22T01:00:00.000Z',
    ]);
    // 01:00's challenge expires at 01:10:00.000 exactly.
    expect(challenges.liveSlots(at('2026-11-22T01:10:00.000Z')).map((d) => d.toISOString())).toEqual([
      '2026-11-22T01:10:00.000Z',
      '2026-11-22T01:05:00.000Z',
    ]);
    const odd = new LoginChallenges('a-test-secret-of-more-than-32-bytes-length', {
      ...settings,
      ttlSeconds: 15,
    });
    // Half a second into a 7-second slot, the challenge of two slots back (issued 14 s ago, 15 s of life) is live.
    const now = new Date(Math.floor(Date.parse('2026-11-22T01:00:00Z') / 7000) * 7000 + 500);
    for (const slot of odd.liveSlots(now)) {
      expect(odd.challenge(address, slot, 0).expiresAt.getTime()).toBeGreaterThan(now.getTime());
    }
    expect(odd.liveSlots(now)).toHaveLength(3);
  });

  it('is the same for the same inputs (any instance with the same secret) and differs in every input', () => {
    const slot = at('2026-11-22T01:05:00.000Z');
    const base = challenges.challenge(address, slot, 0);
    const again = new LoginChallenges('a-test-secret-of-more-than-32-bytes-length', settings);
    expect(again.challenge(address, slot, 0)).toEqual(base);
    const variants = [
      challenges.challenge(other, slot, 0),
      challenges.challenge(address, at('2026-11-22T01:10:00.000Z'), 0),
      challenges.challenge(address, slot, 1),
      new LoginChallenges('another-secret-of-more-than-32-bytes-length', settings).challenge(
        address,
        slot,
        0,
      ),
      new LoginChallenges('a-test-secret-of-more-than-32-bytes-length', {
        ...settings,
        ttlSeconds: 900,
      }).challenge(address, slot, 0),
      new LoginChallenges('a-test-secret-of-more-than-32-bytes-length', {
        ...settings,
        chainId: 10,
      }).challenge(address, slot, 0),
    ];
    const nonces = new Set([base.nonce, ...variants.map((variant) => variant.nonce)]);
    expect(nonces.size).toBe(variants.length + 1);
  });

  it('names the live challenge a message is, by its nonce and then its whole text, and no other', () => {
    const now = at('2026-11-22T01:07:30.000Z');
    const live = challenges.liveSlots(now).map((slot, index) => ({ slot, generation: index }));
    const [newest, older] = live.map(({ slot, generation }) =>
      challenges.challenge(address, slot, generation),
    );
    expect(challenges.named(address, live, older!.message)).toEqual(older);
    expect(challenges.named(address, live, newest!.message)).toEqual(newest);
    // Its nonce, another field changed: refused. A consumed generation or another address's challenge: refused.
    expect(
      challenges.named(address, live, newest!.message.replace('Chain ID: 1', 'Chain ID: 10')),
    ).toBeUndefined();
    expect(
      challenges.named(address, live, challenges.challenge(address, live[0]!.slot, 1).message),
    ).toBeUndefined();
    expect(
      challenges.named(address, live, challenges.challenge(other, live[0]!.slot, 0).message),
    ).toBeUndefined();
    expect(challenges.named(address, live, newest!.nonce)).toBeUndefined();
  });
});
