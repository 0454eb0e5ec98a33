import { Logger } from '@nestjs/common';
import {
  createPublicClient,
  erc20Abi,
  http,
  TransactionReceiptNotFoundError,
  type Hex,
  type PublicClient,
} from 'viem';
import { storageAddress } from '../../common/address/wallet-address.js';
import type { Erc20PaymentSettings } from '../../config/settings.js';
import { creditsOfReceipt, type PaymentReceipt } from './erc20-transfers.js';
import type {
  OnChainTerms,
  PaymentCredit,
  PaymentGateway,
  RenewalPaymentRequest,
} from './payment-gateway.js';
import { PaymentErrors } from './payment.errors.js';

/**
 * `PAYMENT_GATEWAY=erc20`: the subscriber pays in an ERC-20 token on chain and renews with the transaction's hash.
 * Only clear answers from the chain decide; an endpoint that cannot be reached, or that serves another chain,
 * fails the renewal closed (503) and credits nothing.
 */
export class Erc20PaymentGateway implements PaymentGateway {
  readonly name = 'erc20';
  private readonly logger = new Logger(Erc20PaymentGateway.name);
  private readonly client: PublicClient;
  private chainChecked: Promise<void> | undefined;
  private metadata: Promise<{ symbol: string; decimals: number }> | undefined;

  constructor(
    private readonly settings: Erc20PaymentSettings,
    timeoutMs: number,
  ) {
    this.client = createPublicClient({
      transport: http(settings.rpcUrl, { timeout: timeoutMs, retryCount: 0 }),
      // The block number decides confirmations: it must be read afresh, not from viem's 4-second cache.
      cacheTime: 0,
      ccipRead: false,
    });
  }

  async approve({
    principal,
    address,
    txHash,
    pricePerPeriod,
  }: RenewalPaymentRequest): Promise<readonly PaymentCredit[]> {
    if (txHash === undefined) throw PaymentErrors.required();
    await this.checkChain();
    const receipt = await this.receipt(txHash as Hex);
    if (receipt === null) throw PaymentErrors.notFound(txHash);
    const latest = await this.ask('read the latest block number', () => this.client.getBlockNumber());
    // An operator may pay from its own wallet for someone else's subscription; anyone else pays for their own.
    const allowedPayers = principal.operator ? [address, storageAddress(principal.address)] : [address];
    return creditsOfReceipt(txHash, receipt, Number(latest - receipt.blockNumber + 1n), {
      chainId: this.settings.chainId,
      token: storageAddress(this.settings.token),
      receiver: storageAddress(this.settings.receiver),
      pricePerPeriod: pricePerPeriod ?? this.settings.pricePerPeriod,
      requiredConfirmations: this.settings.confirmations,
      allowedPayers: [...new Set(allowedPayers)],
    });
  }

  /** The payment terms, with the token's symbol and decimals read from the chain once and kept. */
  async terms(): Promise<OnChainTerms> {
    const { symbol, decimals } = await this.tokenMetadata();
    const { chainId, token, receiver, pricePerPeriod, confirmations } = this.settings;
    return { chainId, token, symbol, decimals, receiver, pricePerPeriod, confirmations };
  }

  private tokenMetadata(): Promise<{ symbol: string; decimals: number }> {
    this.metadata ??= this.ask('read the token symbol and decimals', async () => {
      const contract = { address: this.settings.token, abi: erc20Abi } as const;
      const [symbol, decimals] = await Promise.all([
        this.client.readContract({ ...contract, functionName: 'symbol' }),
        this.client.readContract({ ...contract, functionName: 'decimals' }),
      ]);
      return { symbol, decimals };
    });
    // Kept only once known: a failed read is tried again on the next request.
    this.metadata.catch(() => (this.metadata = undefined));
    return this.metadata;
  }

  /** Once per process, when it succeeds: a receipt from the endpoint then is a receipt on the configured chain. */
  private checkChain(): Promise<void> {
    this.chainChecked ??= this.ask('read the chain id', () => this.client.getChainId()).then((chainId) => {
      if (chainId !== this.settings.chainId) {
        this.logger.error(
          `CHAIN_RPC_URL serves chain ${chainId}, PAYMENT_CHAIN_ID is ${this.settings.chainId}: payments are refused`,
        );
        throw PaymentErrors.chainMismatch();
      }
    });
    this.chainChecked.catch(() => (this.chainChecked = undefined));
    return this.chainChecked;
  }

  private async receipt(hash: Hex): Promise<PaymentReceipt | null> {
    try {
      return await this.client.getTransactionReceipt({ hash });
    } catch (error) {
      if (error instanceof TransactionReceiptNotFoundError) return null;
      throw this.unavailable('read the receipt', error);
    }
  }

  private async ask<T>(what: string, read: () => Promise<T>): Promise<T> {
    try {
      return await read();
    } catch (error) {
      throw this.unavailable(what, error);
    }
  }

  private unavailable(what: string, error: unknown): Error {
    this.logger.warn(`payment chain: could not ${what}: ${(error as Error).message.split('\n')[0]}`);
    return PaymentErrors.chainUnavailable();
  }
}
