import { Injectable } from '@nestjs/common';
import type { Address } from '../common/address/wallet-address.js';
import type { SqlExecutor } from '../database/database.service.js';

/** Revokes, in `tx`, the live API keys the address's sessions created (and the keys those made); returns them. */
export type SessionKeyRevoker = (tx: SqlExecutor, address: Address) => Promise<number>;

/**
 * "Sign out everywhere" with `revokeKeys` also revokes the keys the wallet's sessions created, in its own
 * transaction. Keys are the api-keys module's, which depends on auth and not the other way round, so it registers
 * how to revoke them here at start, as the webhooks module registers its reaction with the event outbox.
 */
@Injectable()
export class SessionKeyRevocation {
  private revoker: SessionKeyRevoker | undefined;

  register(revoker: SessionKeyRevoker): void {
    this.revoker = revoker;
  }

  revoke(tx: SqlExecutor, address: Address): Promise<number> {
    if (!this.revoker) throw new Error('no API-key revoker registered (ApiKeysModule is not loaded)');
    return this.revoker(tx, address);
  }
}
