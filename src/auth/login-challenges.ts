import { createHmac, hkdfSync } from 'node:crypto';
import { storageAddress, type Address } from '../common/address/wallet-address.js';
import { BASE62_ALPHABET } from '../common/crypto/base62.js';
import { buildSiweMessage } from './siwe-message.js';

export interface ChallengeSettings {
  domain: string;
  uri: string;
  chainId: number;
  ttlSeconds: number;
}

/** A live slot of an address and its generation: what names one challenge. */
export interface LiveSlot {
  slot: Date;
  generation: number;
}

export interface LoginChallenge {
  nonce: string;
  message: string;
  issuedAt: Date;
  expiresAt: Date;
}

/** 24 base62 characters: about 143 bits, over the contract's 128. */
const NONCE_LENGTH = 24;
const NONCE_SPACE = BigInt(BASE62_ALPHABET.length) ** BigInt(NONCE_LENGTH);
/**
 * Login challenges the server can check without having stored them.
 *
 * A challenge is a function of the address, a time slot and a generation, authenticated by the server: its nonce is
 * an HMAC, under a key derived from the JWT secret, over the address, the slot's start (the message's issued-at),
 * the lifetime (its expiration time), the generation and every other field of the EIP-4361 message. So only the
 * server can produce a valid one, and a verify recomputes the few that can be live instead of looking them up.
 *
 * Asking for a nonce therefore writes nothing and cannot displace anything: whoever asks, however often, within a
 * slot gets the same challenge. A slot is half the lifetime, so a challenge has between half and all of
 * AUTH_NONCE_TTL_SECONDS left when handed out. The generation is the number of the address's challenges of that slot
 * already consumed: once a login uses one, the next request gets a fresh one, and the used one stays refused.
 *
 * Why deterministic rather than a random nonce with a MAC: the interface's literal flow verifies with only the
 * address and a signature over the bare nonce, so the server must be able to name the candidate nonces itself.
 */
export class LoginChallenges {
  private readonly key: Buffer;
  private readonly ttlMs: number;
  readonly slotMs: number;

  constructor(
    secret: string,
    private readonly settings: ChallengeSettings,
  ) {
    // A key of its own, so that a nonce can never double as a session token signature or the reverse.
    this.key = Buffer.from(hkdfSync('sha256', secret, '', 'tollgate login challenge v1', 32));
    this.ttlMs = settings.ttlSeconds * 1000;
    this.slotMs = Math.max(1000, Math.floor(this.ttlMs / 2000) * 1000);
  }

  /** The start of the slot a nonce requested at `now` belongs to. */
  currentSlot(now: Date): Date {
    return new Date(Math.floor(now.getTime() / this.slotMs) * this.slotMs);
  }

  /** Starts of the slots whose challenges have not expired at `now`, newest first. */
  liveSlots(now: Date): Date[] {
    const slots: Date[] = [];
    for (
      let start = this.currentSlot(now).getTime();
      start + this.ttlMs > now.getTime();
      start -= this.slotMs
    ) {
      slots.push(new Date(start));
    }
    return slots;
  }

  challenge(address: Address, slot: Date, generation: number): LoginChallenge {
    return this.withMessage(address, slot, this.nonce(address, slot, generation));
  }

  /**
   * The live challenge whose message is `message`, if any. Only the nonces of the live slots are computed (an HMAC
   * each); the one message that can match, the one carrying its nonce, is then built and compared in full.
   */
  named(address: Address, live: readonly LiveSlot[], message: string): LoginChallenge | undefined {
    for (const { slot, generation } of live) {
      const nonce = this.nonce(address, slot, generation);
      if (!message.includes(`\nNonce: ${nonce}\n`)) continue;
      const challenge = this.withMessage(address, slot, nonce);
      return challenge.message === message ? challenge : undefined;
    }
    return undefined;
  }

  private withMessage(address: Address, slot: Date, nonce: string): LoginChallenge {
    const issuedAt = new Date(slot.getTime());
    const expiresAt = new Date(issuedAt.getTime() + this.ttlMs);
    const message = buildSiweMessage({
      domain: this.settings.domain,
      address,
      uri: this.settings.uri,
      chainId: this.settings.chainId,
      nonce,
      issuedAt,
      expiresAt,
    });
    return { nonce, message, issuedAt, expiresAt };
  }

  private nonce(address: Address, issuedAt: Date, generation: number): string {
    const { domain, uri, chainId } = this.settings;
    const mac = createHmac('sha256', this.key)
      .update(
        JSON.stringify([
          storageAddress(address),
          issuedAt.getTime(),
          this.ttlMs,
          generation,
          domain,
          uri,
          chainId,
        ]),
      )
      .digest();
    // 256 bits reduced modulo 62^24: the bias is below 2^-113.
    let value = BigInt(`0x${mac.toString('hex')}`) % NONCE_SPACE;
    let out = '';
    for (let i = 0; i < NONCE_LENGTH; i++) {
      out = BASE62_ALPHABET[Number(value % 62n)]! + out;
      value /= 62n;
    }
    return out;
  }
}
