import { Inject, Injectable } from '@nestjs/common';
import type { Algorithm } from 'jsonwebtoken';
import type { AppConfig } from '../../config/app-config.js';
import { APP_CONFIG } from '../../config/app-config.module.js';
import { checksumAddress, isWalletAddress } from '../../common/address/wallet-address.js';
import { AuthErrors } from '../auth.errors.js';
import type { Principal } from '../principal.js';
import { ALL_SCOPES } from '../scopes.js';
import type { InvalidationTicket } from '../../cache/invalidation-log.service.js';
import { SessionRevocations } from '../session-revocations.service.js';
import {
  JWT_ALGORITHM,
  JWT_AUDIENCE,
  JWT_ISSUER,
  SessionTokenService,
  type SessionClaims,
} from '../session-token.service.js';

/**
 * How passport-jwt verifies a session token, wherever it arrives: HS256 only, issuer and audience pinned. The key
 * is a KeyObject, which jsonwebtoken uses as it is; @types/passport-jwt only lists string and Buffer, and either of
 * those makes jsonwebtoken try to parse the secret as a PEM key (and fail) on every request.
 */
export function sessionTokenVerification(tokens: SessionTokenService): {
  secretOrKey: Buffer;
  algorithms: Algorithm[];
  issuer: string;
  audience: string;
} {
  return {
    secretOrKey: tokens.key as unknown as Buffer,
    algorithms: [JWT_ALGORITHM],
    issuer: JWT_ISSUER,
    audience: JWT_AUDIENCE,
  };
}

/** The principal of a session token whose signature and expiry passport-jwt has checked. */
@Injectable()
export class SessionPrincipals {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly revocations: SessionRevocations,
  ) {}

  /**
   * Checks the claims beyond the signature: their shape, that the token was not logged out, and that it was issued
   * after the wallet's last "sign out everywhere". Both answers are cached (see SessionRevocations).
   */
  async principalOf(claims: SessionClaims, ticket?: InvalidationTicket): Promise<Principal> {
    if (
      typeof claims.jti !== 'string' ||
      typeof claims.exp !== 'number' ||
      typeof claims.iat !== 'number' ||
      !isWalletAddress(claims.sub)
    ) {
      throw AuthErrors.invalidToken();
    }
    const [revoked, notBefore] = await Promise.all([
      this.revocations.isRevoked(claims.jti, ticket),
      this.revocations.sessionsNotBefore(claims.sub, ticket),
    ]);
    if (revoked || claims.iat < notBefore) throw AuthErrors.tokenRevoked();
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
