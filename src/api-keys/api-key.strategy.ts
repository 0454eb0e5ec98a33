import { Inject, Injectable } from '@nestjs/common';
import { Strategy } from 'passport-custom';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/app-config.module.js';
import { checksumAddress } from '../common/address/wallet-address.js';
import { ExpiringCache } from '../common/cache/expiring-cache.js';
import { AuthErrors } from '../auth/auth.errors.js';
import type { Principal } from '../auth/principal.js';
import type { StrategyRequest } from '../auth/strategies/jwt-session.strategy.js';
import { digestApiKey, isWellFormedApiKey } from './api-key-format.js';
import { ApiKeyUsageTracker } from './api-key-usage.tracker.js';
import { ApiKeyLookup } from './api-key-lookup.service.js';

/** Digests of recently presented well-formed keys, so a busy key is not checked and hashed on every request. */
const DIGESTS_KEPT = 10_000;
const DIGEST_TTL_MS = 10 * 60_000;

/**
 * passport-custom strategy for `Authorization: Bearer tg_…`. A key of the wrong shape or checksum is refused
 * before any database work; a well-formed one is looked up by its SHA-256 digest (a cache, else one
 * unique-index probe).
 */
@Injectable()
export class ApiKeyStrategy extends Strategy {
  constructor(@Inject(APP_CONFIG) config: AppConfig, lookup: ApiKeyLookup, usage: ApiKeyUsageTracker) {
    const digests = new ExpiringCache<string>(DIGESTS_KEPT, DIGEST_TTL_MS);
    super((request, done) => {
      const { credential, invalidationTicket } = request as unknown as StrategyRequest;
      const { token } = credential;
      let digest = digests.get(token);
      if (digest === undefined) {
        if (!isWellFormedApiKey(token)) return done(AuthErrors.invalidApiKey());
        digest = digestApiKey(token).toString('hex');
        digests.set(token, digest);
      }
      lookup.find(digest, invalidationTicket).then((key) => {
        if (!key) return done(AuthErrors.invalidApiKey());
        if (key.revokedAt) return done(AuthErrors.apiKeyRevoked());
        usage.touch(key.id);
        const principal: Principal = {
          address: checksumAddress(key.ownerAddress),
          scopes: key.scopes,
          via: 'api_key',
          carrier: 'header',
          operator: config.operatorAddresses.has(key.ownerAddress),
          keyId: key.id,
          freshAsOf: invalidationTicket,
        };
        done(null, principal);
      }, done);
    });
  }
}
