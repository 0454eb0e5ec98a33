import {
  type Address,
  BaseError,
  compactSignatureToSignature,
  createPublicClient,
  encodeDeployData,
  erc6492SignatureValidatorAbi,
  erc6492SignatureValidatorByteCode,
  ExecutionRevertedError,
  RawContractError,
  hashMessage,
  type Hex,
  hexToBool,
  http,
  isAddress,
  isAddressEqual,
  parseCompactSignature,
  type PublicClient,
  recoverAddress,
  RpcRequestError,
  serializeSignature,
  size,
  zeroAddress,
} from 'viem';
import type { SignerRecovery } from './signer-recovery.js';
import { tracedTransport } from '../../tracing/traced-transport.js';

export type SignatureVerdict = 'valid' | 'invalid' | 'unverifiable';

export interface WalletSignatureVerifierOptions {
  /** JSON-RPC endpoint for smart-wallet checks; without it only EOA signatures can be confirmed. */
  rpcUrl?: string;
  timeoutMs: number;
  /** Where ECDSA signers are recovered; on the calling thread when absent. */
  recovery?: SignerRecovery;
}

/** Chain checks one verify may cause: the newest challenge's message and its bare nonce. */
export const MAX_CHAIN_CANDIDATES = 2;

export interface MultiMessageInput {
  address: `0x${string}`;
  /** Candidates in order of preference (newest challenge first). */
  messages: readonly string[];
  signature: `0x${string}`;
}

export interface MultiMessageVerdict {
  verdict: SignatureVerdict;
  /** The candidate the signature is over, when valid. */
  index?: number;
}

export interface WalletSignatureInput {
  address: `0x${string}`;
  message: string;
  signature: `0x${string}`;
}

// 64 bytes is an EIP-2098 compact signature; the upper bound leaves room for ERC-6492 wrappers carrying
// factory calldata while keeping request bodies (and the eth_call we forward them to) small.
const MIN_SIGNATURE_HEX_CHARS = 128;
const MAX_SIGNATURE_HEX_CHARS = 20_000;
const HEX_BYTES = /^0x(?:[0-9a-fA-F]{2})*$/;

export function isHexSignature(value: string): boolean {
  const hexChars = value.length - 2;
  return hexChars >= MIN_SIGNATURE_HEX_CHARS && hexChars <= MAX_SIGNATURE_HEX_CHARS && HEX_BYTES.test(value);
}

/**
 * Decides whether `signature` is an EIP-191 personal_sign signature of `message` by `address`.
 * EOAs are checked locally; everything else (ERC-1271 wallets, ERC-6492 counterfactual wallets) is checked
 * with one eth_call of the universal signature validator. Only a clear answer from the chain yields
 * 'valid' or 'invalid'; transport errors and timeouts yield 'unverifiable' so callers fail closed.
 */
export class WalletSignatureVerifier {
  private readonly client: PublicClient | undefined;
  private readonly recovery: SignerRecovery | undefined;

  constructor(options: WalletSignatureVerifierOptions) {
    this.recovery = options.recovery;
    this.client = options.rpcUrl
      ? createPublicClient({
          transport: tracedTransport(
            http(options.rpcUrl, { timeout: options.timeoutMs, retryCount: 0 }),
            options.rpcUrl,
          ),
          // A wallet contract could otherwise revert with OffchainLookup and make us fetch any URL it names.
          ccipRead: false,
        })
      : undefined;
  }

  async verify({ address, message, signature }: WalletSignatureInput): Promise<SignatureVerdict> {
    return (await this.verifyAny({ address, messages: [message], signature })).verdict;
  }

  /**
   * Which of several candidate messages (a login challenge's SIWE message and its bare nonce, for each outstanding
   * challenge) the signature is over. Every candidate is tried locally first, so an ordinary wallet never waits
   * for the chain; only then are at most {@link MAX_CHAIN_CANDIDATES} candidates (the newest) asked of the chain,
   * in parallel, which bounds what one unauthenticated request can cost the RPC endpoint.
   */
  async verifyAny({ address, messages, signature }: MultiMessageInput): Promise<MultiMessageVerdict> {
    return this.verifyHashes(
      address,
      messages.map((message) => hashMessage(message)),
      signature,
    );
  }

  /**
   * Whether `signature` is `address`'s over the digest `hash` (EIP-712 typed data, say), by the same rules: an EOA
   * locally, a smart wallet (ERC-1271, ERC-6492) with one eth_call.
   */
  async verifyHash(address: `0x${string}`, hash: Hex, signature: Hex): Promise<SignatureVerdict> {
    return (await this.verifyHashes(address, [hash], signature)).verdict;
  }

  private async verifyHashes(
    address: `0x${string}`,
    hashes: readonly Hex[],
    signature: Hex,
  ): Promise<MultiMessageVerdict> {
    if (!isAddress(address, { strict: false }) || !isHexSignature(signature)) return { verdict: 'invalid' };
    // ecrecover yields the zero address for garbage, so no signature may ever speak for it.
    if (isAddressEqual(address, zeroAddress)) return { verdict: 'invalid' };
    let recovered = false;
    for (const [index, hash] of hashes.entries()) {
      const signer = await recoverEcdsaSigner(hash, signature, this.recovery);
      if (signer) recovered = true;
      if (signer && isAddressEqual(signer, address)) return { verdict: 'valid', index };
    }
    const client = this.client;
    if (!client) {
      // A recoverable ECDSA signature from someone else is a wrong signer; any other shape may be a smart
      // wallet's signature, which only the chain can judge.
      return { verdict: recovered ? 'invalid' : 'unverifiable' };
    }
    const verdicts = await Promise.all(
      hashes.slice(0, MAX_CHAIN_CANDIDATES).map((hash) => verifyOnChain(client, address, hash, signature)),
    );
    const index = verdicts.indexOf('valid');
    if (index !== -1) return { verdict: 'valid', index };
    return { verdict: verdicts.includes('unverifiable') ? 'unverifiable' : 'invalid' };
  }
}

async function recoverEcdsaSigner(
  hash: Hex,
  signature: Hex,
  recovery: SignerRecovery | undefined,
): Promise<Address | undefined> {
  const recover = (full: Hex): Promise<Address> =>
    recovery ? recovery.recover(hash, full) : recoverAddress({ hash, signature: full });
  try {
    switch (size(signature)) {
      case 65:
        return await recover(signature);
      case 64:
        return await recover(
          serializeSignature(compactSignatureToSignature(parseCompactSignature(signature))),
        );
      default:
        return undefined;
    }
  } catch {
    return undefined;
  }
}

/**
 * Runs the deployless ERC-6492 universal validator (it handles EOAs, ERC-1271 and ERC-6492 alike).
 * viem's verifyMessage does the same call but turns every call error, including an unreachable RPC, into
 * `false`; here only a revert counts as a rejection.
 */
async function verifyOnChain(
  client: PublicClient,
  address: Address,
  hash: Hex,
  signature: Hex,
): Promise<SignatureVerdict> {
  let data: Hex | undefined;
  try {
    ({ data } = await client.call({
      data: encodeDeployData({
        abi: erc6492SignatureValidatorAbi,
        bytecode: erc6492SignatureValidatorByteCode,
        args: [address, hash, signature],
      }),
    }));
  } catch (error) {
    return isRevert(error) ? 'invalid' : 'unverifiable';
  }
  if (data === undefined) return 'unverifiable';
  try {
    return hexToBool(data) ? 'valid' : 'invalid';
  } catch {
    return 'unverifiable';
  }
}

/**
 * The validator reverts on malformed signatures and failed ERC-6492 factory calls, which is the chain saying
 * no. Most nodes report that as code 3 "execution reverted"; others (tevm, some clients) use -32000 or -32015
 * with "revert" in the message, so JSON-RPC errors are matched on the word as well.
 */
function isRevert(error: unknown): boolean {
  if (!(error instanceof BaseError)) return false;
  // A node answers a revert that carries data with code 3 and the data, which viem raises as RawContractError.
  const cause = error.walk(
    (e) =>
      e instanceof ExecutionRevertedError ||
      e instanceof RawContractError ||
      (e instanceof RpcRequestError && /revert/i.test(e.details)),
  );
  return cause !== null;
}
