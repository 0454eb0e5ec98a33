import { createHash, createHmac, createSecretKey, randomUUID, type KeyObject } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import jwt from 'jsonwebtoken';
import { LRUCache } from 'lru-cache';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/app-config.module.js';
import { AuthErrors } from './auth.errors.js';
import { resolveJwtSecret } from './jwt-secret.js';

export const JWT_ISSUER = 'tollgate';
export const JWT_AUDIENCE = 'tollgate-api';
export const JWT_ALGORITHM = 'HS256';

/** The JOSE header of every session token: jsonwebtoken's, byte for byte. */
const ENCODED_HEADER = Buffer.from(JSON.stringify({ alg: JWT_ALGORITHM, typ: 'JWT' })).toString('base64url');

export interface SessionClaims {
  sub: string;
  iat: number;
  exp: number;
  jti: string;
  iss: string;
  aud: string;
}

export interface IssuedSession {
  token: string;
  jti: string;
  expiresAt: Date;
}

/** Tokens whose signature was checked, by the SHA-256 of the token (never the token itself). */
const VERIFIED_TOKENS = 100_000;

/**
 * Issues and verifies session JWTs: HS256, pinned algorithm, the claims of CONTRACT.md section 2. Revocation is
 * not decided here (see SessionPrincipals).
 */
@Injectable()
export class SessionTokenService {
  /**
   * The secret as a KeyObject: handed a string, jsonwebtoken first tries to parse it as a PEM public key (and
   * throws) on every call, which was a tenth of a protected request's CPU time.
   */
  readonly key: KeyObject;
  /**
   * Claims of tokens already verified, by the token's digest. A token's signature, issuer and audience never stop
   * being valid while this process's key stays the same, so only the expiry is checked again on a repeat; a
   * session sends its token on every request, and jsonwebtoken's verification was a seventh of a cached read.
   */
  private readonly verified = new LRUCache<string, SessionClaims>({ max: VERIFIED_TOKENS });

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {
    this.key = createSecretKey(Buffer.from(resolveJwtSecret(config), 'utf8'));
  }

  /**
   * The claims of a session token: signature (HS256 only), issuer and audience checked by jsonwebtoken, then the
   * expiry at `now`. Throws the contract's 401 (`token_expired`, else `invalid_token`).
   */
  verify(token: string, now = Date.now()): SessionClaims {
    const digest = createHash('sha256').update(token).digest('base64');
    let claims = this.verified.get(digest);
    if (claims === undefined) {
      try {
        claims = jwt.verify(token, this.key, {
          algorithms: [JWT_ALGORITHM],
          issuer: JWT_ISSUER,
          audience: JWT_AUDIENCE,
          clockTimestamp: Math.floor(now / 1000),
        }) as SessionClaims;
      } catch (error) {
        throw (error as Error).name === 'TokenExpiredError'
          ? AuthErrors.tokenExpired()
          : AuthErrors.invalidToken();
      }
      if (typeof claims.exp !== 'number') throw AuthErrors.invalidToken();
      this.verified.set(digest, Object.freeze(claims));
    }
    // jsonwebtoken's rule: expired from the second `exp` names.
    if (Math.floor(now / 1000) >= claims.exp) throw AuthErrors.tokenExpired();
    return claims;
  }

  issue(address: string, now = new Date()): IssuedSession {
    const iat = Math.floor(now.getTime() / 1000);
    const exp = iat + this.config.jwtTtlSeconds;
    const jti = randomUUID();
    const claims: SessionClaims = { sub: address, iat, exp, jti, iss: JWT_ISSUER, aud: JWT_AUDIENCE };
    // HS256 over header.payload (RFC 7515): all a fixed-algorithm signer needs; verification stays with
    // jsonwebtoken (see verify).
    const signingInput = `${ENCODED_HEADER}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
    const token = `${signingInput}.${createHmac('sha256', this.key).update(signingInput).digest('base64url')}`;
    return { token, jti, expiresAt: new Date(exp * 1000) };
  }
}
