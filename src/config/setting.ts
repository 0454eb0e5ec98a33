import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { resolve } from 'node:path';
import { isURL } from 'class-validator';
import { getAddress } from 'viem';

/** A bad value, reported with every other bad value in one message (the text names the variable). */
export class InvalidSetting extends Error {}

/**
 * Turns the variable's raw text into its value; `undefined` means "unset, use the default". Throws
 * {@link InvalidSetting} for a value it refuses. `name` is the variable, for the message.
 */
export type Parser<T> = (raw: string, name: string) => T | undefined;

/** One setting, described once: the typed AppConfig, the validation and docs/configuration.md's table all come from it. */
export interface Setting<T> {
  /** The environment variable. */
  readonly env: string;
  readonly parse: Parser<T>;
  /** Used when the variable is unset (or empty, for the parsers that say so); a function when computed at start. */
  readonly default: T | (() => T);
  /** The configuration table's "Default" cell, when the default is computed or not worth printing as a literal. */
  readonly defaultDoc?: string;
  /** The configuration table's "Meaning" cell (Markdown, one line). */
  readonly doc: string;
}

/** Identity with inference: declares a setting whose value type is what `parse` and `default` produce. */
export function setting<T>(declaration: Setting<T>): Setting<T> {
  return declaration;
}

function invalid(message: string): never {
  throw new InvalidSetting(message);
}

/** An integer within bounds; empty means unset. */
export function integer({ min, max }: { min?: number; max?: number } = {}): Parser<number> {
  return (raw, name) => {
    const text = raw.trim();
    if (text === '') return undefined;
    if (!/^-?\d+$/.test(text)) invalid(`${name} must be an integer number`);
    const value = Number(text);
    if (min !== undefined && value < min) invalid(`${name} must not be less than ${min}`);
    if (max !== undefined && value > max) invalid(`${name} must not be greater than ${max}`);
    return value;
  };
}

/** true/1/yes or false/0/no, any case; empty means unset. */
export function boolean(): Parser<boolean> {
  return (raw, name) => {
    const text = raw.trim().toLowerCase();
    if (text === '') return undefined;
    if (['true', '1', 'yes'].includes(text)) return true;
    if (['false', '0', 'no'].includes(text)) return false;
    return invalid(`${name} must be a boolean value`);
  };
}

/** Any text, optionally matching a pattern; empty means unset. */
export function text({ pattern, message }: { pattern?: RegExp; message?: string } = {}): Parser<string> {
  return (raw, name) => {
    if (raw === '') return undefined;
    if (pattern && !pattern.test(raw)) invalid(message ?? `${name} must match ${pattern}`);
    return raw;
  };
}

/** Text of at least `min` characters; empty means unset. */
export function secret({ min }: { min: number }): Parser<string> {
  return (raw, name) => {
    if (raw === '') return undefined;
    if (raw.length < min) invalid(`${name} must be at least ${min} bytes long`);
    return raw;
  };
}

/** One of a fixed set of words. Empty is not one of them, so it is refused rather than read as unset. */
export function oneOf<const Word extends string>(words: readonly Word[]): Parser<Word> {
  return (raw, name) =>
    (words as readonly string[]).includes(raw)
      ? (raw as Word)
      : invalid(`${name} must be one of the following values: ${words.join(', ')}`);
}

/** An absolute URL (any scheme unless `protocols` is given); empty means unset. */
export function url({ protocols, message }: { protocols?: string[]; message?: string } = {}): Parser<string> {
  return (raw, name) => {
    if (raw === '') return undefined;
    if (!isURL(raw, { require_tld: false, require_protocol: true, ...(protocols ? { protocols } : {}) })) {
      invalid(message ?? `${name} must be a URL address`);
    }
    return raw;
  };
}

/** A directory, resolved against the working directory at start; empty means unset. */
export function directory(): Parser<string> {
  return (raw) => (raw === '' ? undefined : resolve(raw));
}

/**
 * A comma-separated list; blanks around items are dropped. `item` returns the stored form of an item, or undefined
 * for a bad one: every bad item is named in one message.
 */
export function list<Item>(item: (text: string) => Item | undefined, what: string): Parser<Item[]> {
  return (raw, name) => {
    const items = raw
      .split(',')
      .map((part) => part.trim())
      .filter((part) => part.length > 0);
    const parsed = items.map(item);
    const bad = items.filter((_, index) => parsed[index] === undefined);
    if (bad.length > 0) invalid(`${name}: not ${what}: ${bad.join(', ')}`);
    return parsed as Item[];
  };
}

const PROXY_RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

function isAddressOrRange(item: string): boolean {
  if (PROXY_RANGE_NAMES.has(item)) return true;
  const [ip, prefix, ...rest] = item.split('/');
  const family = isIP(ip ?? '');
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}

/** `true`/`false` like {@link boolean}, or a comma-separated list of addresses, CIDR ranges and range names. */
export function trustedProxies(): Parser<boolean | readonly string[]> {
  const addresses = list((item) => (isAddressOrRange(item) ? item : undefined), 'addresses or CIDR ranges');
  return (raw, name) => {
    const word = raw.trim().toLowerCase();
    if (['true', 'false', '1', '0', 'yes', 'no', ''].includes(word)) return boolean()(raw, name);
    return addresses(raw, name);
  };
}

const UINT256_MAX = 2n ** 256n - 1n;

/** An EVM address (0x and 40 hex digits, any case), kept in EIP-55 form; empty means unset. */
export function address(what: string): Parser<`0x${string}`> {
  return (raw, name) => {
    if (raw === '') return undefined;
    if (!/^0x[0-9a-fA-F]{40}$/.test(raw)) invalid(`${name} must be ${what} (0x and 40 hex digits)`);
    return getAddress(raw);
  };
}

/** A positive integer up to a uint256, as a bigint (token amounts exceed a double); empty means unset. */
export function positiveUint256(): Parser<bigint> {
  return (raw, name) => {
    const text = raw.trim();
    if (text === '') return undefined;
    if (!/^\d+$/.test(text) || BigInt(text) === 0n) invalid(`${name} must be a positive integer`);
    if (BigInt(text) > UINT256_MAX) invalid(`${name} must not be larger than a uint256`);
    return BigInt(text);
  };
}

const PRIVATE_KEY = /^0x[0-9a-fA-F]{64}$/;

/** A secp256k1 private key, 0x and 64 hex digits; empty means unset. A refusal never repeats the value. */
export function privateKey(): Parser<`0x${string}`> {
  return (raw, name) => {
    const text = raw.trim();
    if (text === '') return undefined;
    if (!PRIVATE_KEY.test(text)) invalid(`${name} must be a private key: 0x and 64 hex digits`);
    return text as `0x${string}`;
  };
}

/**
 * A file whose only content is a private key (0x and 64 hex digits), read once at start: the value is the key.
 * Keeps the key out of the environment (process listings, crash reports); a refusal names the file, never its text.
 */
export function privateKeyFile(): Parser<`0x${string}`> {
  return (raw, name) => {
    if (raw === '') return undefined;
    let text: string;
    try {
      text = readFileSync(resolve(raw), 'utf8').trim();
    } catch (error) {
      return invalid(`${name}: cannot read ${raw} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
    }
    if (!PRIVATE_KEY.test(text)) invalid(`${name}: ${raw} must hold one private key: 0x and 64 hex digits`);
    return text as `0x${string}`;
  };
}

/** `parse`, except that empty means unset (for a choice whose absence means something). */
export function optional<T>(parse: Parser<T>): Parser<T> {
  return (raw, name) => (raw === '' ? undefined : parse(raw, name));
}
