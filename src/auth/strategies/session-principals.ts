import { Inject, Injectable } from '@nestjs/common';
import type { AppConfig } from '../../config/app-config.js';
import { APP_CONFIG } from '../../config/app-config.module.js';
import { checksumAddress, isWalletAddress } from '../../common/address/wallet-address.js';
import { AuthErrors } from '../auth.errors.js';
import type { Principal } from '../principal.js';
import { ALL_SCOPES } from '../scopes.js';
import { SessionRevocations } from '../session-revocations.service.js';
import type { SessionClaims } from '../session-token.service.js';

/** The principal of a session token whose signature and expiry were checked (SessionTokenService.verify). */
@Injectable()
export class SessionPrincipals {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly revocations: SessionRevocations,
  ) {}

  /** Checks the claims beyond the signature (their shape, and that the token was not logged out). */
  async principalOf(claims: SessionClaims): Promise<Principal> {
    if (typeof claims.jti !== 'string' || typeof claims.exp !== 'number' || !isWalletAddress(claims.sub)) {
      throw AuthErrors.invalidToken();
    }
    if (await this.revocations.isRevoked(claims.jti)) throw AuthErrors.tokenRevoked();
    const address = checksumAddress(claims.sub);
    return {
      address,
      scopes: ALL_SCOPES,
      via: 'jwt',
      operator: this.config.operatorAddresses.has(address.toLowerCase()),
      tokenId: claims.jti,
      tokenExpiresAt: new Date(claims.exp * 1000),
    };
  }
}
