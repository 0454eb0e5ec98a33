import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { Strategy } from 'passport-custom';
import { AuthErrors } from '../auth.errors.js';
import type { Principal } from '../principal.js';
import { SessionTokenService } from '../session-token.service.js';
import { bearerToken, type CredentialRequest } from './session-credentials.js';
import { SessionPrincipals } from './session-principals.js';

/** passport-custom strategy 'jwt': a session token in `Authorization: Bearer <jwt>`. */
@Injectable()
export class JwtHeaderStrategy extends PassportStrategy(Strategy, 'jwt') {
  constructor(
    private readonly tokens: SessionTokenService,
    private readonly sessions: SessionPrincipals,
  ) {
    super();
  }

  validate(request: CredentialRequest): Promise<Principal> {
    const token = bearerToken(request);
    if (token === null) throw AuthErrors.invalidToken();
    return this.sessions.principalOf(this.tokens.verify(token));
  }
}
