import { Inject, Injectable } from '@nestjs/common';
import type { Algorithm } from 'jsonwebtoken';
import type { AppConfig } from '../../config/app-config.js';
import { APP_CONFIG } from '../../config/app-config.module.js';
import { checksumAddress, isWalletAddress } from '../../common/address/wallet-address.js';
import { AuthErrors } from '../auth.errors.js';
import type { Principal } from '../principal.js';
import { ALL_SCOPES } from '../scopes.js';
import { SessionRevocations } from '../session-revocations.service.js';
import {
  JWT_ALGORITHM,
  JWT_AUDIENCE,
  JWT_ISSUER,
  SESSION_TOKEN_HEADER,
  SessionTokenService,
  type SessionClaims,
} from '../session-token.service.js';
import { isUuid } from '../../common/ids/uuid.js';

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

/**
 * `extract`, keeping only a token with the JOSE header this service writes, byte for byte
 * ({@link SESSION_TOKEN_HEADER}). jsonwebtoken ignores header fields it does not know, `crit` included, which RFC 7515
 * requires a verifier that does not understand them to refuse. Another token is handed on as absent, which the access
 * guard answers 401 `invalid_token` since a credential was sent.
 */
export function issuedHeaderOnly<Request>(
  extract: (request: Request) => string | null,
): (request: Request) => string | null {
  const prefix = `${SESSION_TOKEN_HEADER}.`;
  return (request) => {
    const token = extract(request);
    return token !== null && token.startsWith(prefix) ? token : null;
  };
}

/** How far ahead of this instance's clock a token's `iat` may be: another instance's clock may run a little fast. */
const CLOCK_SKEW_SECONDS = 60;

/** The principal of a session token whose signature and expiry passport-jwt has checked. */
@Injectable()
export class SessionPrincipals {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly revocations: SessionRevocations,
  ) {}

  /**
   * Checks the claims beyond the signature: their shape, that the token was not logged out, and that it was issued
   * under the wallet's current session generation (after its last "sign out everywhere"). Both answers are cached
   * (see SessionRevocations).
   */
  async principalOf(claims: SessionClaims): Promise<Principal> {
    if (!this.wellFormed(claims)) throw AuthErrors.invalidToken();
    const [revoked, notBefore] = await Promise.all([
      this.revocations.isRevoked(claims.jti),
      this.revocations.sessionsNotBefore(claims.sub),
    ]);
    // A token without `gen` predates generations: its whole-second `iat` is all there is to compare.
    const signedOut =
      claims.gen === undefined ? claims.iat < notBefore.seconds : claims.gen < notBefore.generation;
    if (revoked || signedOut) throw AuthErrors.tokenRevoked();
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

  /**
   * Whether the claims are ones this service could have issued. A correctly signed token can still carry anything
   * (a leaked or reused secret, a token from another build): an id that is not a UUID, times that are not whole
   * seconds or lie beyond any date, an `iat` in the future, a lifetime over JWT_TTL_SECONDS, or an audience list (jsonwebtoken accepts one that contains ours). Each is refused as
   * `invalid_token` here, before any of them reaches a query or a Date.
   */
  private wellFormed(claims: SessionClaims): boolean {
    const { jti, iat, exp, gen, sub, aud } = claims;
    return (
      aud === JWT_AUDIENCE &&
      typeof jti === 'string' &&
      isUuid(jti) &&
      Number.isSafeInteger(iat) &&
      iat > 0 &&
      iat <= Math.floor(Date.now() / 1000) + CLOCK_SKEW_SECONDS &&
      Number.isSafeInteger(exp) &&
      exp > iat &&
      exp - iat <= this.config.jwtTtlSeconds &&
      (gen === undefined || (Number.isSafeInteger(gen) && gen >= 0)) &&
      isWalletAddress(sub)
    );
  }
}
