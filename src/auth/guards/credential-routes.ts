import { Injectable, type OnModuleInit } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import type { Strategy } from 'passport';
import { JwtHeaderStrategy } from '../strategies/jwt-header.strategy.js';
import { SessionCookieStrategy } from '../strategies/session-cookie.strategy.js';
import {
  bearerToken,
  sessionCookieToken,
  type CredentialRequest,
} from '../strategies/session-credentials.js';

/** A strategy of another module that claims requests by the shape of their credential. */
export interface CredentialClaimant extends Strategy {
  /** Whether the request's credential has this strategy's shape (it is then offered to no other). */
  claims(request: CredentialRequest): boolean;
}

/**
 * Marks a passport strategy provider as a {@link CredentialClaimant}: CredentialRoutes finds every one when the app
 * starts, so a module that brings its own credential declares it here and registers nothing.
 */
export const ClaimsCredentials = DiscoveryService.createDecorator<void>();

/**
 * Which one passport strategy a request's credential is for, read from its shape: each request is offered to one
 * strategy, not to every strategy in turn. Other modules mark the strategies of the shapes they own with
 * `@ClaimsCredentials()` (the api-keys module: `Bearer tg_…`), so auth/ knows no other module's credential format; any other Bearer token is a session
 * token (JwtHeaderStrategy), and the cookie counts only when no Authorization header is sent (the header alone
 * decides).
 */
@Injectable()
export class CredentialRoutes implements OnModuleInit {
  private claimed: CredentialClaimant[] = [];

  constructor(
    private readonly sessionToken: JwtHeaderStrategy,
    private readonly sessionCookie: SessionCookieStrategy,
    private readonly discovery: DiscoveryService,
  ) {}

  onModuleInit(): void {
    this.claimed = this.discovery
      .getProviders({ metadataKey: ClaimsCredentials.KEY })
      .map((wrapper) => wrapper.instance as CredentialClaimant);
  }

  /** The strategy to run, or undefined: no credential, or a header no strategy reads. */
  strategyFor(request: CredentialRequest): Strategy | undefined {
    if (request.headers.authorization === undefined) {
      return sessionCookieToken(request) === null ? undefined : this.sessionCookie;
    }
    for (const strategy of this.claimed) if (strategy.claims(request)) return strategy;
    return bearerToken(request) === null ? undefined : this.sessionToken;
  }
}
