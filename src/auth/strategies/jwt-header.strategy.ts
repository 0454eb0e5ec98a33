import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { Strategy } from 'passport-jwt';
import type { Principal } from '../principal.js';
import type { SessionClaims } from '../session-token.service.js';
import { SessionTokenService } from '../session-token.service.js';
import { bearerToken } from './session-credentials.js';
import { issuedHeaderOnly, SessionPrincipals, sessionTokenVerification } from './session-principals.js';

/** A session token in `Authorization: Bearer <jwt>`. */
@Injectable()
export class JwtHeaderStrategy extends PassportStrategy(Strategy, 'jwt') {
  constructor(
    tokens: SessionTokenService,
    private readonly sessions: SessionPrincipals,
  ) {
    super({
      jwtFromRequest: issuedHeaderOnly(bearerToken),
      ...sessionTokenVerification(tokens),
    });
  }

  validate(claims: SessionClaims): Promise<Principal> {
    return this.sessions.principalOf(claims);
  }
}
