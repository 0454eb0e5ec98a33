import { Injectable } from '@nestjs/common';
import { storageAddress } from '../common/address/wallet-address.js';
import type { Page, PageRequest } from '../common/pagination/cursor-page.js';
import { Database } from '../database/database.service.js';
import { EventOutbox } from '../events/event-outbox.service.js';
import type { Principal } from '../auth/principal.js';
import { heldScopes, type Scope } from '../auth/scopes.js';
import { generateApiKey } from './api-key-format.js';
import { ApiKeyErrors } from './api-keys.errors.js';
import { AuthErrors } from '../auth/auth.errors.js';
import { ApiKeysRepository, type ApiKeyRecord, type NewApiKey } from './api-keys.repository.js';

export interface CreatedApiKey {
  record: ApiKeyRecord;
  /** The full key: handed to the caller once, never stored or logged. */
  key: string;
}

export interface RevokedApiKeys {
  record: ApiKeyRecord;
  /** Keys created by it (directly or not) that this revocation revoked. */
  descendants: ApiKeyRecord[];
}

/** Which credential is creating a key: the presenting API key, or the session token. */
function creatorOf(principal: Principal): NewApiKey['createdBy'] {
  if (principal.via === 'api_key' && principal.keyId) return { keyId: principal.keyId };
  if (principal.tokenId) return { session: principal.tokenId };
  throw new Error('a principal without a key id or token id');
}

function eventData(record: ApiKeyRecord): Record<string, unknown> {
  return {
    id: record.id,
    label: record.label,
    scopes: record.scopes,
    prefix: record.prefix,
    createdAt: record.createdAt.toISOString(),
    revokedAt: record.revokedAt?.toISOString() ?? null,
  };
}

/** Creating, listing and revoking a wallet's API keys; each change emits its event in the same transaction. */
@Injectable()
export class ApiKeysService {
  constructor(
    private readonly db: Database,
    private readonly repository: ApiKeysRepository,
    private readonly outbox: EventOutbox,
  ) {}

  async create(principal: Principal, label: string, scopes: readonly Scope[]): Promise<CreatedApiKey> {
    const held = heldScopes(principal.scopes);
    const missing = scopes.filter((scope) => !held.has(scope));
    if (missing.length > 0) throw ApiKeyErrors.scopeNotHeld(missing);

    const createdBy = creatorOf(principal);
    const generated = generateApiKey();
    const record = await this.db.transaction(async (tx) => {
      // A key revoked while it creates another must not leave a live child behind (see revokeDescendants).
      if ('keyId' in createdBy && !(await this.repository.lockLiveCreator(tx, createdBy.keyId))) {
        throw AuthErrors.apiKeyRevoked();
      }
      const inserted = await this.repository.insert(tx, {
        ownerAddress: storageAddress(principal.address),
        label,
        scopes: [...scopes],
        keyDigest: generated.digest,
        prefix: generated.prefix,
        last4: generated.last4,
        createdBy,
      });
      await this.outbox.record(tx, {
        type: 'api_key.created',
        address: principal.address,
        data: eventData(inserted),
        occurredAt: inserted.createdAt,
      });
      return inserted;
    });
    return { record, key: generated.key };
  }

  list(principal: Principal): Promise<ApiKeyRecord[]> {
    return this.repository.listByOwner(storageAddress(principal.address));
  }

  listPage(principal: Principal, page: PageRequest): Promise<Page<ApiKeyRecord>> {
    return this.repository.listPageByOwner(storageAddress(principal.address), page);
  }

  /**
   * Revokes the key and, in the same transaction, every key it created, directly or not: a key minted by a stolen
   * key dies with it. Idempotent: revoking a revoked key answers as the first time and emits nothing new for it
   * (keys of its tree still live, e.g. after a revocation by hand in SQL, are revoked then).
   */
  revoke(principal: Principal, id: string): Promise<RevokedApiKeys> {
    return this.db.transaction(async (tx) => {
      const revoked = await this.repository.revoke(tx, storageAddress(principal.address), id);
      if (!revoked) throw ApiKeyErrors.notFound();
      const descendants = await this.repository.revokeDescendants(tx, id);
      for (const record of [...(revoked.changed ? [revoked.record] : []), ...descendants]) {
        await this.outbox.record(tx, {
          type: 'api_key.revoked',
          address: principal.address,
          data: eventData(record),
          occurredAt: record.revokedAt!,
        });
      }
      return { record: revoked.record, descendants };
    });
  }
}
