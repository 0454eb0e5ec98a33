import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/app-config.module.js';
import { storageAddress, type Address } from '../common/address/wallet-address.js';
import { Database } from '../database/database.service.js';
import { AuthErrors } from './auth.errors.js';
import { AuthRepository } from './auth.repository.js';
import { LoginChallenges, type LiveSlot, type LoginChallenge } from './login-challenges.js';
import type { Principal } from './principal.js';
import { SessionKeyRevocation } from './session-key-revocation.js';
import { SessionRevocations } from './session-revocations.service.js';
import { SessionTokenService, type IssuedSession } from './session-token.service.js';
import { WalletSignatureVerifier } from './signature/wallet-signature.verifier.js';

const PURGE_INTERVAL_MS = 60_000;

export type IssuedChallenge = LoginChallenge;

interface Candidate {
  challenge: LoginChallenge;
  signedText: string;
}

/** Wallet login: challenges (EIP-4361), signature verification, sessions and logout. */
@Injectable()
export class AuthService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(AuthService.name);
  private purgeTimer: NodeJS.Timeout | undefined;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly repository: AuthRepository,
    private readonly tokens: SessionTokenService,
    private readonly verifier: WalletSignatureVerifier,
    private readonly revocations: SessionRevocations,
    private readonly challenges: LoginChallenges,
    private readonly db: Database,
    private readonly sessionKeys: SessionKeyRevocation,
  ) {}

  onModuleInit(): void {
    this.purgeTimer = setInterval(() => void this.purge(), PURGE_INTERVAL_MS).unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.purgeTimer);
  }

  /** The address's current challenge. Writes nothing: asking again, from anywhere, returns the same one. */
  async issueChallenge(address: Address, now = new Date()): Promise<IssuedChallenge> {
    const slot = this.challenges.currentSlot(now);
    const consumed = await this.repository.consumedPerSlot(storageAddress(address), [slot]);
    return this.challenges.challenge(address, slot, consumed.get(slot.getTime()) ?? 0);
  }

  /**
   * Checks a signature against the address's live challenges and, when one matches, consumes it and opens a
   * session. The cheap checks come first: no signature work happens without a usable challenge.
   */
  async verify(address: Address, signature: `0x${string}`, message?: string): Promise<IssuedSession> {
    const now = new Date();
    const candidates = this.candidates(address, await this.liveSlots(address, now), message);
    if (candidates.length === 0) throw AuthErrors.challengeNotFound();

    const { verdict, index } = await this.verifier.verifyAny({
      address,
      messages: candidates.map((candidate) => candidate.signedText),
      signature,
    });
    if (verdict === 'unverifiable') throw AuthErrors.signatureUnverifiable();
    if (verdict !== 'valid' || index === undefined) throw AuthErrors.invalidSignature();
    const { challenge } = candidates[index]!;
    // A chain check can take seconds: the challenge must still be live when it is used.
    if (challenge.expiresAt.getTime() <= Date.now()) throw AuthErrors.challengeNotFound();
    const { consumed, generation } = await this.repository.consumeChallenge({
      address: storageAddress(address),
      nonce: challenge.nonce,
      issuedAt: challenge.issuedAt,
      expiresAt: challenge.expiresAt,
    });
    if (!consumed) throw AuthErrors.challengeNotFound();
    return this.tokens.issue(address, generation, now);
  }

  async logout(principal: Principal): Promise<void> {
    if (principal.tokenId && principal.tokenExpiresAt) {
      await this.revocations.revoke(principal.tokenId, principal.tokenExpiresAt);
    }
  }

  /**
   * "Sign out everywhere": every session token of the wallet issued until this commits is refused from then on,
   * and with `revokeKeys` the keys its sessions created are revoked in the same transaction. Returns how many keys
   * were revoked.
   */
  logoutEverywhere(principal: Principal, options: { revokeKeys: boolean; now: Date }): Promise<number> {
    return this.db.transaction(async (tx) => {
      await this.revocations.cutOff(tx, principal.address, options.now);
      return options.revokeKeys ? this.sessionKeys.revoke(tx, principal.address) : 0;
    });
  }

  /** The live slots, newest first, each with its next generation: one unconsumed challenge per slot. */
  private async liveSlots(address: Address, now: Date): Promise<LiveSlot[]> {
    const slots = this.challenges.liveSlots(now);
    const consumed = await this.repository.consumedPerSlot(storageAddress(address), slots);
    return slots.map((slot) => ({ slot, generation: consumed.get(slot.getTime()) ?? 0 }));
  }

  /**
   * What the signature may be over: the message the client names, when it is one of the live challenges, or, when
   * it names none, each live challenge's message and (unless AUTH_REQUIRE_SIWE) its bare nonce, the interface's
   * literal flow.
   */
  private candidates(address: Address, live: LiveSlot[], message: string | undefined): Candidate[] {
    if (message !== undefined) {
      const named = this.challenges.named(address, live, message);
      return named ? [{ challenge: named, signedText: named.message }] : [];
    }
    return live.flatMap(({ slot, generation }) => {
      const challenge = this.challenges.challenge(address, slot, generation);
      return [
        { challenge, signedText: challenge.message },
        ...(this.config.authRequireSiwe ? [] : [{ challenge, signedText: challenge.nonce }]),
      ];
    });
  }

  private async purge(): Promise<void> {
    try {
      const purged = await this.repository.purgeExpired(this.config.jwtTtlSeconds);
      if (purged.challenges + purged.revokedTokens + purged.sessionCutoffs > 0)
        this.logger.debug({ purged, msg: 'purged expired auth rows' });
    } catch (error) {
      this.logger.warn(`purging expired auth rows failed: ${(error as Error).message}`);
    }
  }
}
