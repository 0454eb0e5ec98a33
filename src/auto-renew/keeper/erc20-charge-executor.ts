import { Logger } from '@nestjs/common';
import {
  type Address,
  BaseError,
  ContractFunctionRevertedError,
  encodeEventTopics,
  encodeFunctionData,
  erc20Abi,
  type Hex,
  keccak256,
  parseEventLogs,
  type PublicClient,
  TransactionReceiptNotFoundError,
  type TransactionReceipt,
} from 'viem';
import { type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts';
import { ChargeExecutor, type ChargeOutcome, type DueCharge } from '../charge-executor.js';
import { chargeTransfer, chargeTransferLogIndex } from '../charge-transfer.js';
import { chargerAbi, chargeRefusals } from '../mandate.js';
import { refusalDetail, type TokenUnits } from './charge-refusal-detail.js';
import type { KeeperMetrics } from './keeper.metrics.js';
import type { ChargeKey, KeeperChargeRow, KeeperRepository, SignedCharge } from './keeper.repository.js';

/**
 * A charge's gas limit. A charge by an EOA's signature uses well under 100 000; the margin covers a smart wallet's
 * ERC-1271 check and tokens with hooks. Only the gas used is paid, but the key must hold limit × fee. Not estimated:
 * an estimate refuses a charge whose state changed since the simulation, and some nodes estimate too low for the
 * 63/64 a call forwards to the token.
 */
export const CHARGE_GAS_LIMIT = 1_000_000n;
/** How long a read gas balance is reused: one chain read per instance per interval, whoever polls. */
const BALANCE_REUSE_MS = 15_000;
/** How long a process may hold a claim without recording a transaction before another process takes it over. */
const CLAIM_LEASE_SECONDS = 60;
/** A replacement's fee: at least this many 64ths above the one it replaces (nodes require +10 %: 80/64 is +25 %). */
const REPLACEMENT_BUMP_64THS = 80n;

export interface Erc20ChargeExecutorOptions {
  /** The chain's endpoint (`CHAIN_RPC_URL`), through automatic renewal's one client (autoRenewChainClient). */
  client: PublicClient;
  /** The configured chain (`PAYMENT_CHAIN_ID`): an endpoint serving another is refused. */
  chainId: number;
  /** The charging contract (`AUTO_RENEW_CHARGER_ADDRESS`). */
  charger: Address;
  /** The keeper's key; kept inside the signing account, never logged. */
  privateKey: Hex;
  /** `PAYMENT_CONFIRMATIONS`: the charge's own block counts as one. */
  confirmations: number;
  /** `KEEPER_REPLACE_AFTER_SECONDS`. */
  replaceAfterSeconds: number;
  /** How long one `charge` call waits for the receipt and its confirmations before answering `pending`. */
  receiptWaitMs?: number;
  /** Between two reads of the receipt while waiting. */
  pollMs?: number;
}

/** The endpoint did not answer, answered an error, or serves another chain: nothing was decided. */
class ChainUnavailable extends Error {}

/**
 * The `ChargeExecutor` of `erc20`: the keeper. Simulates the charge (`eth_call`) and says why it would fail, or signs
 * it with the keeper's key, records the signed transaction, broadcasts it and waits for its confirmations. Exactly
 * once per (mandate, period): the row claimed in `keeper_charges` decides which process sends, and whoever asks
 * again (this process, another, or one after a restart) reconciles the recorded transaction with the chain
 * (receipt, nonce, the contract's `charged`) instead of sending another. States and transitions:
 * docs/decisions/2026-11-27-keeper-charges-exactly-once.md.
 */
export class Erc20ChargeExecutor extends ChargeExecutor {
  private readonly logger = new Logger('Keeper');
  private readonly client: PublicClient;
  private readonly account: PrivateKeyAccount;
  private chainChecked: Promise<void> | undefined;
  private readonly units = new Map<string, Promise<TokenUnits | undefined>>();
  private readonly receiptWaitMs: number;
  private readonly pollMs: number;
  private lastBalance: { at: number; read: Promise<bigint> } | undefined;
  /** The last send of this process: the next takes its nonce and broadcasts after it (see `inTurn`). */
  private sending: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly options: Erc20ChargeExecutorOptions,
    private readonly repository: KeeperRepository,
    private readonly metrics?: KeeperMetrics,
  ) {
    super();
    this.account = privateKeyToAccount(options.privateKey);
    this.client = options.client;
    this.receiptWaitMs = options.receiptWaitMs ?? 30_000;
    this.pollMs = options.pollMs ?? 500;
  }

  /** The keeper's address (EIP-55): the account that pays the gas. */
  get address(): Address {
    return this.account.address;
  }

  /**
   * The keeper's gas balance in wei, read at most once per {@link BALANCE_REUSE_MS} (health checks and scrapes share
   * it). Rejects when the chain cannot be read.
   */
  balance(): Promise<bigint> {
    if (!this.lastBalance || Date.now() - this.lastBalance.at >= BALANCE_REUSE_MS) {
      const read = this.client.getBalance({ address: this.account.address });
      this.lastBalance = { at: Date.now(), read };
      read.catch(() => (this.lastBalance = undefined));
    }
    return this.lastBalance.read;
  }

  async charge(due: DueCharge): Promise<ChargeOutcome> {
    // The first transaction, and one more should it revert: a charge that keeps reverting is not sent in a loop,
    // only when asked again (pending meanwhile).
    const outcome = (await this.answer(() => this.collect(due, 2))) ?? { kind: 'pending' };
    this.metrics?.counted(outcome);
    return outcome;
  }

  /** The charge already asked for, reconciled as `charge` does, but no transaction is signed. */
  async settle(due: DueCharge): Promise<ChargeOutcome | null> {
    const outcome = await this.answer(() => this.collect(due, 0));
    if (outcome) this.metrics?.counted(outcome);
    return outcome;
  }

  private async answer(work: () => Promise<ChargeOutcome | null>): Promise<ChargeOutcome | null> {
    try {
      return await work();
    } catch (error) {
      if (!(error instanceof ChainUnavailable)) throw error;
      return { kind: 'failed', failure: 'chain_unavailable', detail: error.message, retryable: true };
    }
  }

  /**
   * `sends`: how many new transactions this call may still sign (a recorded one is broadcast again or replaced
   * whatever it is). Null: none of ours is in flight or carried the charge, and none may be sent.
   */
  private async collect(due: DueCharge, sends: number): Promise<ChargeOutcome | null> {
    const key = chargeKey(due);
    const row = await this.repository.find(key, this.options.replaceAfterSeconds);
    if (row?.state === 'confirmed') return this.charged(due, row.transferTxHash!, row.transferLogIndex!);
    if (row?.state === 'sent') return this.reconcile(due, row, Math.min(sends, 1));
    if (row?.state === 'claimed' && !row.claimExpired) return { kind: 'pending' };
    if (sends > 0) return this.sendFresh(due, sends);
    // Nothing of ours: the period may still have been charged by another caller (`charge` is open to anyone).
    await this.checkChain();
    const transfer = await this.chargedOnChain(due);
    return transfer ? this.charged(due, transfer.txHash, transfer.logIndex) : null;
  }

  /** No transaction of ours is in flight for this charge: simulate, claim, sign, record, broadcast, wait. */
  private async sendFresh(due: DueCharge, sends: number): Promise<ChargeOutcome | null> {
    await this.checkChain();
    const refused = await this.simulate(due);
    if (refused) return refused;

    const key = chargeKey(due);
    const claimToken = await this.repository.claim(key, {
      chainId: this.options.chainId,
      keeper: this.account.address.toLowerCase(),
      leaseSeconds: CLAIM_LEASE_SECONDS,
    });
    if (claimToken === undefined) {
      // Another process holds it, or finished it since we looked: report what it did.
      const row = await this.repository.find(key, this.options.replaceAfterSeconds);
      if (row?.state === 'confirmed') return this.charged(due, row.transferTxHash!, row.transferLogIndex!);
      return { kind: 'pending' };
    }

    const [fees, pendingNonce] = await Promise.all([
      this.ask('read the fees', () => this.client.estimateFeesPerGas()),
      this.ask('read the nonce', () =>
        this.client.getTransactionCount({ address: this.account.address, blockTag: 'pending' }),
      ),
    ]);
    const signed = await this.inTurn(async () => {
      const recorded = await this.repository.recordSigned(
        key,
        claimToken,
        { chainId: this.options.chainId, address: this.account.address.toLowerCase(), pendingNonce },
        (nonce) => this.sign(due, nonce, fees.maxFeePerGas, fees.maxPriorityFeePerGas),
      );
      if (recorded) await this.broadcast(recorded.rawTx as Hex);
      return recorded;
    });
    if (!signed) return { kind: 'pending' };
    return this.awaitOutcome(due, [signed.txHash as Hex], sends - 1);
  }

  /** A transaction of ours was recorded: find what became of it before doing anything else. */
  private async reconcile(
    due: DueCharge,
    row: KeeperChargeRow,
    sends: number,
  ): Promise<ChargeOutcome | null> {
    await this.checkChain();
    const hashes = [row.txHash!, ...row.replacedTxHashes] as Hex[];
    const mined = await this.minedReceipt(hashes);
    if (mined) return this.settleReceipt(due, row, mined, sends);

    const minedNonce = await this.ask('read the nonce', () =>
      this.client.getTransactionCount({ address: this.account.address, blockTag: 'latest' }),
    );
    if (minedNonce > Number(row.nonce)) {
      // The nonce went to a transaction that is none of ours (the key was used elsewhere): no charge of ours was
      // mined. Someone may still have charged the period; otherwise it is charged afresh with a new nonce.
      const transfer = await this.chargedOnChain(due);
      if (transfer) return this.confirmWith(due, row, transfer);
      await this.repository.markReverted(chargeKey(due), row.txHash!);
      return sends > 0 ? this.sendFresh(due, sends) : null;
    }

    if (row.replaceDue) {
      const replacement = await this.replace(due, row);
      if (replacement) return this.awaitOutcome(due, [replacement.txHash as Hex, ...hashes], sends);
      return { kind: 'pending' };
    }
    // Still waiting: broadcast it again, as it is (the mempool may have lost it, or it was never sent).
    await this.broadcast(row.rawTx as Hex);
    return this.awaitOutcome(due, hashes, sends);
  }

  /** What a mined transaction of ours did. */
  private async settleReceipt(
    due: DueCharge,
    row: Pick<KeeperChargeRow, 'txHash'>,
    receipt: TransactionReceipt,
    sends: number,
  ): Promise<ChargeOutcome | null> {
    if (receipt.status === 'success') {
      const transfer = this.transferIn(due, receipt);
      if (!transfer)
        throw new Error(`charge ${receipt.transactionHash} succeeded without the mandate's transfer`);
      if (!(await this.confirmed(receipt.blockNumber))) return { kind: 'pending' };
      return this.confirmWith(due, row, { txHash: receipt.transactionHash, logIndex: transfer });
    }
    // Reverted on chain: the state changed between the simulation and the block (or another caller charged it).
    // The nonce is spent; the charge is simulated and, if it can be made (and this call may), sent again.
    this.logger.warn(`charge ${receipt.transactionHash} reverted`);
    await this.repository.markReverted(chargeKey(due), row.txHash!);
    return sends > 0 ? this.sendFresh(due, sends) : null;
  }

  private async confirmWith(
    due: DueCharge,
    row: Pick<KeeperChargeRow, 'txHash'> | undefined,
    transfer: { txHash: string; logIndex: number },
  ): Promise<ChargeOutcome> {
    if (row) await this.repository.confirm(chargeKey(due), transfer);
    return this.charged(due, transfer.txHash, transfer.logIndex);
  }

  private charged(due: DueCharge, txHash: string, logIndex: number): ChargeOutcome {
    const transfer = chargeTransfer(this.options.chainId, due.mandate, txHash, logIndex);
    return { kind: 'charged', amountMinor: due.mandate.amount, transfer };
  }

  /** Waits (bounded) for one of `hashes` to be mined with its confirmations; `pending` when the wait runs out. */
  private async awaitOutcome(due: DueCharge, hashes: Hex[], sends: number): Promise<ChargeOutcome | null> {
    const deadline = Date.now() + this.receiptWaitMs;
    for (;;) {
      const mined = await this.minedReceipt(hashes);
      if (mined && (mined.status !== 'success' || (await this.confirmed(mined.blockNumber)))) {
        const row = await this.repository.find(chargeKey(due), this.options.replaceAfterSeconds);
        if (row?.state === 'confirmed') return this.charged(due, row.transferTxHash!, row.transferLogIndex!);
        return this.settleReceipt(due, { txHash: row?.txHash ?? hashes[0]! }, mined, sends);
      }
      if (Date.now() + this.pollMs > deadline) return { kind: 'pending' };
      await new Promise((resolve) => setTimeout(resolve, this.pollMs));
    }
  }

  private async minedReceipt(hashes: readonly Hex[]): Promise<TransactionReceipt | undefined> {
    for (const hash of hashes) {
      try {
        return await this.client.getTransactionReceipt({ hash });
      } catch (error) {
        if (!(error instanceof TransactionReceiptNotFoundError))
          throw this.unavailable('read a receipt', error);
      }
    }
    return undefined;
  }

  private async confirmed(blockNumber: bigint): Promise<boolean> {
    const latest = await this.ask('read the block number', () => this.client.getBlockNumber());
    return latest - blockNumber + 1n >= BigInt(this.options.confirmations);
  }

  /** The log index of the mandate's token transfer (payer to payee, the amount) in a charge's receipt. */
  private transferIn(due: DueCharge, receipt: TransactionReceipt): number | undefined {
    return chargeTransferLogIndex(due.mandate, receipt.logs);
  }

  /**
   * The transfer of a charge someone made of this period (another caller: `charge` is open to anyone), from the
   * contract's `Charged` event and its transaction's receipt; undefined when the period is not charged.
   */
  private async chargedOnChain(due: DueCharge): Promise<{ txHash: string; logIndex: number } | undefined> {
    const charged = await this.ask('read charged()', () =>
      this.client.readContract({
        address: this.options.charger,
        abi: chargerAbi,
        functionName: 'charged',
        args: [due.mandateHash, due.periodIndex],
      }),
    );
    if (!charged) return undefined;
    // Only the topics given, without trailing nulls (some endpoints refuse a null topic).
    const topics = encodeEventTopics({
      abi: chargerAbi,
      eventName: 'Charged',
      args: { mandateHash: due.mandateHash, periodIndex: due.periodIndex },
    }).filter((topic) => topic !== null);
    const logs = await this.ask('read the Charged event', async () =>
      parseEventLogs({
        abi: chargerAbi,
        eventName: 'Charged',
        logs: await this.client.request({
          method: 'eth_getLogs',
          params: [{ address: this.options.charger, topics, fromBlock: 'earliest', toBlock: 'latest' }],
        }),
      }),
    );
    // Matched again here: an endpoint that ignores the topic filter (the in-process EVM does) answers every log.
    const event = logs.find(
      (log) =>
        log.args.mandateHash.toLowerCase() === due.mandateHash.toLowerCase() &&
        log.args.periodIndex === due.periodIndex,
    );
    if (!event?.transactionHash)
      throw new ChainUnavailable('the Charged event of a charged period was not found');
    const hash = event.transactionHash;
    const receipt = await this.ask('read a receipt', () => this.client.getTransactionReceipt({ hash }));
    const logIndex = this.transferIn(due, receipt);
    if (logIndex === undefined) throw new Error(`charge ${hash} holds no transfer of the mandate`);
    if (!(await this.confirmed(receipt.blockNumber))) return undefined;
    return { txHash: hash, logIndex };
  }

  /** Simulates the charge as the keeper; answers the outcome when it would not succeed, undefined when it would. */
  private async simulate(due: DueCharge): Promise<ChargeOutcome | undefined> {
    try {
      await this.client.simulateContract({
        account: this.account.address,
        address: this.options.charger,
        abi: chargerAbi,
        functionName: 'charge',
        args: [due.mandate, due.signature, due.periodIndex],
        gas: CHARGE_GAS_LIMIT,
      });
      return undefined;
    } catch (error) {
      const reverted =
        error instanceof BaseError ? error.walk((e) => e instanceof ContractFunctionRevertedError) : null;
      const data = reverted instanceof ContractFunctionRevertedError ? reverted.data : undefined;
      if (!data) throw this.unavailable('simulate the charge', error);
      const refusal = chargeRefusals[data.errorName as keyof typeof chargeRefusals];
      if (refusal === 'already_charged') {
        const transfer = await this.chargedOnChain(due);
        return transfer ? this.charged(due, transfer.txHash, transfer.logIndex) : { kind: 'pending' };
      }
      const units = await this.tokenUnits(due.mandate.token);
      const { detail, retryable } = refusalDetail(refusal, data.args ?? [], units, due.periodIndex);
      return { kind: 'failed', failure: refusal, detail, retryable };
    }
  }

  private async sign(due: DueCharge, nonce: number, maxFeePerGas: bigint, maxPriorityFeePerGas: bigint) {
    const rawTx = await this.account.signTransaction({
      type: 'eip1559',
      chainId: this.options.chainId,
      to: this.options.charger,
      data: encodeFunctionData({
        abi: chargerAbi,
        functionName: 'charge',
        args: [due.mandate, due.signature, due.periodIndex],
      }),
      gas: CHARGE_GAS_LIMIT,
      nonce,
      maxFeePerGas,
      maxPriorityFeePerGas,
    });
    return { txHash: keccak256(rawTx), rawTx, maxFeePerGas, maxPriorityFeePerGas } satisfies SignedCharge;
  }

  /**
   * Charges made at once (AUTO_RENEW_CONCURRENCY) take their nonces and broadcast one after another, so that a node
   * gets this process's transactions in nonce order: one that arrives ahead of a gap may be refused or held back.
   */
  private inTurn<T>(send: () => Promise<T>): Promise<T> {
    const turn = this.sending.then(send);
    this.sending = turn.catch(() => undefined);
    return turn;
  }

  /** Signs the same charge with the same nonce and a higher fee, records it, broadcasts it. */
  private async replace(due: DueCharge, row: KeeperChargeRow): Promise<SignedCharge | undefined> {
    const fees = await this.ask('read the fees', () => this.client.estimateFeesPerGas());
    const bump = (old: bigint, now: bigint): bigint => {
      const raised = (old * REPLACEMENT_BUMP_64THS + 63n) / 64n;
      return now > raised ? now : raised;
    };
    const maxPriorityFeePerGas = bump(BigInt(row.maxPriorityFeePerGas!), fees.maxPriorityFeePerGas);
    let maxFeePerGas = bump(BigInt(row.maxFeePerGas!), fees.maxFeePerGas);
    if (maxFeePerGas < maxPriorityFeePerGas) maxFeePerGas = maxPriorityFeePerGas;
    const signed = await this.sign(due, Number(row.nonce), maxFeePerGas, maxPriorityFeePerGas);
    if (!(await this.repository.replace(chargeKey(due), row.txHash!, signed))) return undefined;
    this.logger.log(
      `charge ${row.txHash} not mined in time: replaced by ${signed.txHash} (nonce ${row.nonce})`,
    );
    await this.broadcast(signed.rawTx as Hex);
    return signed;
  }

  /**
   * Hands a recorded transaction to the endpoint. A refusal is logged and left: the transaction is recorded, so the
   * next call broadcasts it again or finds it mined (an endpoint may refuse one it already holds: "already known").
   */
  private async broadcast(rawTx: Hex): Promise<void> {
    try {
      await this.client.sendRawTransaction({ serializedTransaction: rawTx });
    } catch (error) {
      this.logger.warn(`broadcast of ${keccak256(rawTx)} refused: ${firstLine(error)}`);
    }
  }

  /** Once per process, when it succeeds: answers from the endpoint are then answers of the configured chain. */
  private checkChain(): Promise<void> {
    this.chainChecked ??= this.ask('read the chain id', () => this.client.getChainId()).then((chainId) => {
      if (chainId !== this.options.chainId)
        throw new ChainUnavailable(
          `CHAIN_RPC_URL serves chain ${chainId}, PAYMENT_CHAIN_ID is ${this.options.chainId}`,
        );
    });
    this.chainChecked.catch(() => (this.chainChecked = undefined));
    return this.chainChecked;
  }

  /** The token's symbol and decimals for a refusal's figures; undefined (smallest units) when they cannot be read. */
  private tokenUnits(token: Address): Promise<TokenUnits | undefined> {
    const cached = this.units.get(token.toLowerCase());
    if (cached) return cached;
    const read = Promise.all([
      this.client.readContract({ address: token, abi: erc20Abi, functionName: 'symbol' }),
      this.client.readContract({ address: token, abi: erc20Abi, functionName: 'decimals' }),
    ]).then(
      ([symbol, decimals]) => ({ symbol, decimals }),
      () => {
        this.units.delete(token.toLowerCase());
        return undefined;
      },
    );
    this.units.set(token.toLowerCase(), read);
    return read;
  }

  private async ask<T>(what: string, read: () => Promise<T>): Promise<T> {
    try {
      return await read();
    } catch (error) {
      throw this.unavailable(what, error);
    }
  }

  private unavailable(what: string, error: unknown): ChainUnavailable {
    if (error instanceof ChainUnavailable) return error;
    this.logger.warn(`chain: could not ${what}: ${firstLine(error)}`);
    return new ChainUnavailable(`the chain's endpoint did not answer (could not ${what}); tried again later`);
  }
}

function chargeKey(due: DueCharge): ChargeKey {
  return { mandateHash: due.mandateHash.toLowerCase(), periodIndex: due.periodIndex.toString() };
}

function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0]!;
}
