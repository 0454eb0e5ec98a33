import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { Database, type SqlExecutor } from '../../database/database.service.js';
import { selectList } from '../../database/select-list.js';
import { raw, sql } from '../../database/sql.js';
import { KeeperChargeEntity } from './keeper-charge.entity.js';

const LISTED = [
  'mandateHash',
  'periodIndex',
  'state',
  'claimToken',
  'keeper',
  'nonce',
  'txHash',
  'rawTx',
  'maxFeePerGas',
  'maxPriorityFeePerGas',
  'replacedTxHashes',
  'transferTxHash',
  'transferLogIndex',
] as const;
const COLUMNS = raw(selectList(KeeperChargeEntity, LISTED));

export type KeeperChargeRow = Pick<KeeperChargeEntity, (typeof LISTED)[number]> & {
  /** A `claimed` row whose holder let its lease run out. */
  claimExpired: boolean;
  /** A `sent` row whose transaction has waited longer than the replacement delay. */
  replaceDue: boolean;
};

/** The charge a row names, as stored: the lowercase mandate hash and the period index in decimal. */
export interface ChargeKey {
  mandateHash: string;
  periodIndex: string;
}

/** A signed charge transaction, as recorded before it is broadcast. */
export interface SignedCharge {
  txHash: string;
  rawTx: string;
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
}

/** Every statement of the keeper: its charges and its keys' nonces. */
@Injectable()
export class KeeperRepository {
  constructor(private readonly db: Database) {}

  async find(key: ChargeKey, replaceAfterSeconds: number): Promise<KeeperChargeRow | undefined> {
    const { rows } = await this.db.run<KeeperChargeRow>(
      sql`SELECT ${COLUMNS}, claimed_until < now() AS "claimExpired",
            sent_at <= now() - make_interval(secs => ${replaceAfterSeconds}) AS "replaceDue"
          FROM keeper_charges WHERE mandate_hash = ${key.mandateHash} AND period_index = ${key.periodIndex}`,
    );
    return rows[0];
  }

  /**
   * Claims the charge for this process: a new row, or one whose transaction reverted (or lost its nonce), or a claim
   * whose holder stopped before recording a transaction. Answers the claim's token, or undefined when another
   * process holds the charge (or it is sent or done).
   */
  async claim(
    key: ChargeKey,
    holder: { chainId: number; keeper: string; leaseSeconds: number },
  ): Promise<string | undefined> {
    const token = randomUUID();
    const { rows } = await this.db.run<{ claimToken: string }>(
      sql`INSERT INTO keeper_charges (mandate_hash, period_index, state, claim_token, claimed_until, chain_id, keeper)
          VALUES (${key.mandateHash}, ${key.periodIndex}, 'claimed', ${token},
                  now() + make_interval(secs => ${holder.leaseSeconds}), ${holder.chainId}, ${holder.keeper})
          ON CONFLICT (mandate_hash, period_index) DO UPDATE SET
            state = 'claimed', claim_token = EXCLUDED.claim_token, claimed_until = EXCLUDED.claimed_until,
            chain_id = EXCLUDED.chain_id, keeper = EXCLUDED.keeper, nonce = NULL, tx_hash = NULL, raw_tx = NULL,
            max_fee_per_gas = NULL, max_priority_fee_per_gas = NULL, sent_at = NULL, replaced_tx_hashes = '{}',
            resends = keeper_charges.resends + CASE WHEN keeper_charges.state = 'reverted' THEN 1 ELSE 0 END,
            updated_at = now()
          WHERE keeper_charges.state = 'reverted'
             OR (keeper_charges.state = 'claimed' AND keeper_charges.claimed_until < now())
          RETURNING claim_token AS "claimToken"`,
    );
    return rows[0]?.claimToken;
  }

  /**
   * In one transaction: takes the key's next nonce, has `sign` sign the charge with it and records the signed
   * transaction on the claimed row. Nothing is recorded, and the nonce is not taken, when the claim is no longer
   * this process's (answers false). `pendingNonce` is the chain's count of the key's transactions, mempool included:
   * the stored next nonce only ever moves up to it (the key was used elsewhere), never down.
   */
  async recordSigned(
    key: ChargeKey,
    claimToken: string,
    account: { chainId: number; address: string; pendingNonce: number },
    sign: (nonce: number) => Promise<SignedCharge>,
  ): Promise<SignedCharge | undefined> {
    return this.db
      .transaction(async (tx) => {
        const nonce = await this.takeNonce(tx, account);
        const signed = await sign(nonce);
        const { rowCount } = await tx.run(
          sql`UPDATE keeper_charges SET state = 'sent', nonce = ${nonce}, tx_hash = ${signed.txHash},
                raw_tx = ${signed.rawTx}, max_fee_per_gas = ${signed.maxFeePerGas.toString()},
                max_priority_fee_per_gas = ${signed.maxPriorityFeePerGas.toString()}, sent_at = now(),
                updated_at = now()
              WHERE mandate_hash = ${key.mandateHash} AND period_index = ${key.periodIndex}
                AND state = 'claimed' AND claim_token = ${claimToken}`,
        );
        // Rolls the nonce back with it: a claim taken over meanwhile belongs to the other process now.
        if (rowCount === 0) throw new ClaimLost();
        return signed;
      })
      .catch((error: unknown) => {
        if (error instanceof ClaimLost) return undefined;
        throw error;
      });
  }

  private async takeNonce(
    tx: SqlExecutor,
    account: { chainId: number; address: string; pendingNonce: number },
  ): Promise<number> {
    const { rows } = await tx.run<{ nonce: string }>(
      sql`INSERT INTO keeper_nonces (chain_id, address, next_nonce)
          VALUES (${account.chainId}, ${account.address}, ${account.pendingNonce + 1})
          ON CONFLICT (chain_id, address) DO UPDATE SET
            next_nonce = GREATEST(keeper_nonces.next_nonce, ${account.pendingNonce}) + 1, updated_at = now()
          RETURNING next_nonce - 1 AS nonce`,
    );
    return Number(rows[0]!.nonce);
  }

  /** Records a replacement (same nonce, higher fee) unless another process replaced `previousHash` first. */
  async replace(key: ChargeKey, previousHash: string, signed: SignedCharge): Promise<boolean> {
    const { rowCount } = await this.db.run(
      sql`UPDATE keeper_charges SET replaced_tx_hashes = array_append(replaced_tx_hashes, tx_hash),
            tx_hash = ${signed.txHash}, raw_tx = ${signed.rawTx},
            max_fee_per_gas = ${signed.maxFeePerGas.toString()},
            max_priority_fee_per_gas = ${signed.maxPriorityFeePerGas.toString()}, sent_at = now(), updated_at = now()
          WHERE mandate_hash = ${key.mandateHash} AND period_index = ${key.periodIndex}
            AND state = 'sent' AND tx_hash = ${previousHash}`,
    );
    return rowCount === 1;
  }

  /** The charge is on chain, in `transferTxHash` at `transferLogIndex`, with the confirmations required. */
  async confirm(key: ChargeKey, transfer: { txHash: string; logIndex: number }): Promise<void> {
    await this.db.run(
      sql`UPDATE keeper_charges SET state = 'confirmed', transfer_tx_hash = ${transfer.txHash},
            transfer_log_index = ${transfer.logIndex}, updated_at = now()
          WHERE mandate_hash = ${key.mandateHash} AND period_index = ${key.periodIndex} AND state = 'sent'`,
    );
  }

  /** The transaction `txHash` carried no charge (it reverted, or its nonce went to another): claimable again. */
  async markReverted(key: ChargeKey, txHash: string): Promise<void> {
    await this.db.run(
      sql`UPDATE keeper_charges SET state = 'reverted', updated_at = now()
          WHERE mandate_hash = ${key.mandateHash} AND period_index = ${key.periodIndex}
            AND state = 'sent' AND tx_hash = ${txHash}`,
    );
  }

  /** Seconds since the oldest charge still waiting for the chain was claimed; 0 when none waits. */
  async oldestWaitingSeconds(): Promise<number> {
    const { rows } = await this.db.run<{ seconds: number }>(
      sql`SELECT COALESCE(floor(extract(epoch FROM now() - min(created_at))), 0)::integer AS seconds
          FROM keeper_charges WHERE state IN ('claimed', 'sent')`,
    );
    return rows[0]?.seconds ?? 0;
  }
}

class ClaimLost extends Error {}
