import { createHmac, createSecretKey, randomUUID, type KeyObject } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/app-config.module.js';
import { resolveJwtSecret } from './jwt-secret.js';

export const JWT_ISSUER = 'tollgate';
export const JWT_AUDIENCE = 'tollgate-api';
export const JWT_ALGORITHM = 'HS256';

/** The JOSE header of every session token, encoded: jsonwebtoken's, byte for byte. The strategies accept no other. */
export const SESSION_TOKEN_HEADER = Buffer.from(JSON.stringify({ alg: JWT_ALGORITHM, typ: 'JWT' })).toString(
  'base64url',
);

export interface SessionClaims {
  sub: string;
  iat: number;
  exp: number;
  jti: string;
  iss: string;
  aud: string;
  /**
   * The wallet's session generation when the token was issued (private claim): "sign out everywhere" moves the
   * generation on, refusing every token that carries an earlier one. Absent from tokens issued before it existed.
   */
  gen?: number;
}

export interface IssuedSession {
  token: string;
  jti: string;
  expiresAt: Date;
}

/** Issues session JWTs: HS256, pinned algorithm, the documented claims (sub, iat, exp, jti, iss, aud) and `gen`. */
@Injectable()
export class SessionTokenService {
  /**
   * The secret as a KeyObject: handed a string, jsonwebtoken first tries to parse it as a PEM public key (and
   * throws) on every call (docs/performance.md, "Speed tricks in force").
   */
  readonly key: KeyObject;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {
    this.key = createSecretKey(Buffer.from(resolveJwtSecret(config), 'utf8'));
  }

  /** `generation`: the wallet's session generation, read with the login's challenge (AuthRepository). */
  issue(address: string, generation: number, now = new Date()): IssuedSession {
    const iat = Math.floor(now.getTime() / 1000);
    const exp = iat + this.config.jwtTtlSeconds;
    const jti = randomUUID();
    const claims: SessionClaims = {
      sub: address,
      iat,
      exp,
      jti,
      iss: JWT_ISSUER,
      aud: JWT_AUDIENCE,
      gen: generation,
    };
    // HS256 over header.payload (RFC 7515): all a fixed-algorithm signer needs; verification stays with
    // passport-jwt and jsonwebtoken, which pin the algorithm, issuer and audience.
    const signingInput = `${SESSION_TOKEN_HEADER}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
    const token = `${signingInput}.${createHmac('sha256', this.key).update(signingInput).digest('base64url')}`;
    return { token, jti, expiresAt: new Date(exp * 1000) };
  }
}
