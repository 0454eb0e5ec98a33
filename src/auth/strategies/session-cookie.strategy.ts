import { Inject, Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { Strategy } from 'passport-jwt';
import type { AppConfig } from '../../config/app-config.js';
import { APP_CONFIG } from '../../config/app-config.module.js';
import { AuthErrors } from '../auth.errors.js';
import { isAllowedCookieRequest, webOrigin, type OriginCheckRequest } from '../guards/csrf-origin.js';
import type { Principal } from '../principal.js';
import { SessionTokenService, type SessionClaims } from '../session-token.service.js';
import { sessionCookieToken, type CredentialRequest } from './session-credentials.js';
import { issuedHeaderOnly, SessionPrincipals, sessionTokenVerification } from './session-principals.js';

/**
 * A session token in the `tg_session` cookie (only when no Authorization header is sent). A browser sends the
 * cookie on its own, so a write authenticated by it must also come from an allowed origin (CSRF).
 */
@Injectable()
export class SessionCookieStrategy extends PassportStrategy(Strategy, 'session-cookie') {
  private readonly allowedOrigins: ReadonlySet<string>;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    tokens: SessionTokenService,
    private readonly sessions: SessionPrincipals,
  ) {
    super({
      jwtFromRequest: issuedHeaderOnly(sessionCookieToken),
      passReqToCallback: true as const,
      ...sessionTokenVerification(tokens),
    });
    this.allowedOrigins = new Set(
      [...config.corsOrigins, config.authUri].flatMap((url) => webOrigin(url) ?? []),
    );
  }

  async validate(request: OriginCheckRequest & CredentialRequest, claims: SessionClaims): Promise<Principal> {
    const principal = await this.sessions.principalOf(claims);
    if (!isAllowedCookieRequest(request, this.allowedOrigins)) throw AuthErrors.csrfOriginMismatch();
    return principal;
  }
}
