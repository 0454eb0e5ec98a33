import { Injectable } from '@nestjs/common';
import type { Strategy } from 'passport';
import { JwtHeaderStrategy } from '../strategies/jwt-header.strategy.js';
import { SessionCookieStrategy } from '../strategies/session-cookie.strategy.js';
import {
  bearerToken,
  sessionCookieToken,
  type CredentialRequest,
} from '../strategies/session-credentials.js';

/** A strategy of another module that claims requests by the shape of their credential. */
interface Claim {
  strategy: Strategy;
  claims(request: CredentialRequest): boolean;
}

/**
 * Which one passport strategy a request's credential is for, read from its shape: each request is offered to one
 * strategy, not to every strategy in turn. Other modules register the strategies and shapes they own (the api-keys
 * module: `Bearer tg_…`), so auth/ knows no other module's credential format; any other Bearer token is a session
 * token (JwtHeaderStrategy), and the cookie counts only when no Authorization header is sent (the header alone
 * decides).
 */
@Injectable()
export class CredentialRoutes {
  private readonly claimed: Claim[] = [];

  constructor(
    private readonly sessionToken: JwtHeaderStrategy,
    private readonly sessionCookie: SessionCookieStrategy,
  ) {}

  register(strategy: Strategy, claims: (request: CredentialRequest) => boolean): void {
    this.claimed.push({ strategy, claims });
  }

  /** The strategy to run, or undefined: no credential, or a header no strategy reads. */
  strategyFor(request: CredentialRequest): Strategy | undefined {
    if (request.headers.authorization === undefined) {
      return sessionCookieToken(request) === null ? undefined : this.sessionCookie;
    }
    for (const claim of this.claimed) if (claim.claims(request)) return claim.strategy;
    return bearerToken(request) === null ? undefined : this.sessionToken;
  }
}
