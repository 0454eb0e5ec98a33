import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/app-config.module.js';
import { storageAddress, type Address } from '../common/address/wallet-address.js';
import { randomBase62 } from '../common/crypto/base62.js';
import { AuthErrors } from './auth.errors.js';
import { AuthRepository, type OutstandingChallenge } from './auth.repository.js';
import type { Principal } from './principal.js';
import { SessionRevocations } from './session-revocations.service.js';
import { SessionTokenService, type IssuedSession } from './session-token.service.js';
import { buildSiweMessage, isWithinTimeBounds } from './siwe-message.js';
import { WalletSignatureVerifier } from './signature/wallet-signature.verifier.js';

/** 24 base62 characters: about 143 bits, over the contract's 128. */
const NONCE_LENGTH = 24;
const PURGE_INTERVAL_MS = 60_000;

export interface IssuedChallenge {
  nonce: string;
  message: string;
  issuedAt: Date;
  expiresAt: Date;
}

interface Candidate {
  challenge: OutstandingChallenge;
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
  ) {}

  onModuleInit(): void {
    this.purgeTimer = setInterval(() => void this.purge(), PURGE_INTERVAL_MS).unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.purgeTimer);
  }

  async issueChallenge(address: Address, now = new Date()): Promise<IssuedChallenge> {
    const nonce = randomBase62(NONCE_LENGTH);
    const issuedAt = new Date(Math.floor(now.getTime()));
    const expiresAt = new Date(issuedAt.getTime() + this.config.authNonceTtlSeconds * 1000);
    const message = buildSiweMessage({
      domain: this.config.authDomain,
      address,
      uri: this.config.authUri,
      chainId: this.config.authChainId,
      nonce,
      issuedAt,
      expiresAt,
    });
    await this.repository.insertChallenge({
      address: storageAddress(address),
      nonce,
      message,
      issuedAt,
      expiresAt,
    });
    return { nonce, message, issuedAt, expiresAt };
  }

  /**
   * Checks a signature against the address's outstanding challenges and, when one matches, consumes it and opens
   * a session. The cheap checks come first: no signature work happens without a usable challenge.
   */
  async verify(address: Address, signature: `0x${string}`, message?: string): Promise<IssuedSession> {
    const now = new Date();
    const outstanding = await this.repository.outstandingChallenges(storageAddress(address));
    const candidates = this.candidates(outstanding, message, now);
    if (candidates.length === 0) throw AuthErrors.challengeNotFound();

    const { verdict, index } = await this.verifier.verifyAny({
      address,
      messages: candidates.map((candidate) => candidate.signedText),
      signature,
    });
    if (verdict === 'unverifiable') throw AuthErrors.signatureUnverifiable();
    if (verdict !== 'valid' || index === undefined) throw AuthErrors.invalidSignature();
    if (!(await this.repository.consumeChallenge(candidates[index]!.challenge.id))) {
      throw AuthErrors.challengeNotFound();
    }
    return this.tokens.issue(address, now);
  }

  async logout(principal: Principal): Promise<void> {
    if (principal.tokenId && principal.tokenExpiresAt) {
      await this.revocations.revoke(principal.tokenId, principal.tokenExpiresAt);
    }
  }

  /**
   * What the signature may be over: the stored message the client names, or, when it names none, each outstanding
   * challenge's message and (unless AUTH_REQUIRE_SIWE) its bare nonce, the interface's literal flow.
   */
  private candidates(
    outstanding: OutstandingChallenge[],
    message: string | undefined,
    now: Date,
  ): Candidate[] {
    const usable = outstanding.filter((challenge) => isWithinTimeBounds(challenge.message, now));
    if (message !== undefined) {
      const named = usable.find((challenge) => challenge.message === message);
      return named ? [{ challenge: named, signedText: named.message }] : [];
    }
    return usable.flatMap((challenge) => [
      { challenge, signedText: challenge.message },
      ...(this.config.authRequireSiwe ? [] : [{ challenge, signedText: challenge.nonce }]),
    ]);
  }

  private async purge(): Promise<void> {
    try {
      const purged = await this.repository.purgeExpired();
      if (purged.challenges + purged.revokedTokens > 0)
        this.logger.debug({ purged, msg: 'purged expired auth rows' });
    } catch (error) {
      this.logger.warn(`purging expired auth rows failed: ${(error as Error).message}`);
    }
  }
}
