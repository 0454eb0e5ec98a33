import { Injectable } from '@nestjs/common';
import { storageAddress } from '../common/address/wallet-address.js';
import type { Page, PageRequest } from '../common/pagination/cursor-page.js';
import { Database } from '../database/database.service.js';
import { EventOutbox } from '../events/event-outbox.service.js';
import type { Principal } from '../auth/principal.js';
import { heldScopes, type Scope } from '../auth/scopes.js';
import { generateApiKey } from './api-key-format.js';
import { ApiKeyErrors } from './api-keys.errors.js';
import { ApiKeysRepository, type ApiKeyRecord } from './api-keys.repository.js';

export interface CreatedApiKey {
  record: ApiKeyRecord;
  /** The full key: handed to the caller once, never stored or logged. */
  key: string;
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

    const generated = generateApiKey();
    const record = await this.db.transaction(async (tx) => {
      const inserted = await this.repository.insert(tx, {
        ownerAddress: storageAddress(principal.address),
        label,
        scopes: [...scopes],
        keyDigest: generated.digest,
        prefix: generated.prefix,
        last4: generated.last4,
      });
      await this.outbox.record(tx, {
        type: 'api_key.created',
        address: principal.address,
        data: eventData(inserted),
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

  /** Idempotent: revoking a revoked key answers as the first time and emits nothing new. */
  revoke(principal: Principal, id: string): Promise<ApiKeyRecord> {
    return this.db.transaction(async (tx) => {
      const revoked = await this.repository.revoke(tx, storageAddress(principal.address), id);
      if (!revoked) throw ApiKeyErrors.notFound();
      if (revoked.changed) {
        await this.outbox.record(tx, {
          type: 'api_key.revoked',
          address: principal.address,
          data: eventData(revoked.record),
        });
      }
      return revoked.record;
    });
  }
}
