import { Inject, Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { Strategy } from 'passport-custom';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/app-config.module.js';
import { checksumAddress } from '../common/address/wallet-address.js';
import { AuthErrors } from '../auth/auth.errors.js';
import type { Principal } from '../auth/principal.js';
import { ClaimsCredentials, type CredentialClaimant } from '../auth/guards/credential-routes.js';
import { bearerToken, type CredentialRequest } from '../auth/strategies/session-credentials.js';
import { digestApiKey, isWellFormedApiKey, looksLikeApiKey } from './api-key-format.js';
import { ApiKeyUsageTracker } from './api-key-usage.tracker.js';
import { ApiKeyLookup } from './api-key-lookup.service.js';

/**
 * passport-custom strategy 'api-key', for `Authorization: Bearer tg_…` (it claims that shape in CredentialRoutes, so
 * the access guard sends it nothing else). A key of the wrong shape or checksum is refused before any lookup; a
 * well-formed one is looked up by its SHA-256 digest (computed on every request: the plaintext key is never
 * kept). Each use is counted (ApiKeyUsageTracker).
 */
@Injectable()
@ClaimsCredentials()
export class ApiKeyStrategy extends PassportStrategy(Strategy, 'api-key') implements CredentialClaimant {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly lookup: ApiKeyLookup,
    private readonly usage: ApiKeyUsageTracker,
  ) {
    super();
  }

  claims(request: CredentialRequest): boolean {
    const token = bearerToken(request);
    return token !== null && looksLikeApiKey(token);
  }

  async validate(request: CredentialRequest): Promise<Principal> {
    const token = bearerToken(request);
    if (token === null || !isWellFormedApiKey(token)) throw AuthErrors.invalidApiKey();
    const key = await this.lookup.find(digestApiKey(token));
    if (!key) throw AuthErrors.invalidApiKey();
    if (key.revokedAt) throw AuthErrors.apiKeyRevoked();
    // The cached key carries its expiry, so every instance refuses it from that moment on, with no invalidation.
    if (key.expiresAt && key.expiresAt.getTime() <= Date.now()) throw AuthErrors.apiKeyExpired();
    this.usage.touch(key.id);
    return {
      address: checksumAddress(key.ownerAddress),
      scopes: key.scopes,
      via: 'api_key',
      operator: this.config.operatorAddresses.has(key.ownerAddress),
      keyId: key.id,
    };
  }
}
