/// <reference types="node" />
import { readFileSync } from 'node:fs';
import { setting, UsageError } from './settings.js';

const PRIVATE_KEY = /^0x[0-9a-fA-F]{64}$/;
/** The order of secp256k1: a private key is a number from 1 to one below it. */
const CURVE_ORDER = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

export const PRIVATE_KEY_OUT_OF_RANGE =
  'the private key is out of range: it must be above 0 and below the secp256k1 curve order';

/** Reads a line from the terminal without echoing it. */
function promptHidden(question: string): Promise<string> {
  const { stdin, stderr } = process;
  stderr.write(question);
  stdin.setRawMode(true);
  stdin.resume();
  stdin.setEncoding('utf8');
  return new Promise((resolve, reject) => {
    let typed = '';
    const done = (error?: Error): void => {
      stdin.setRawMode(false);
      stdin.pause();
      stdin.off('data', onData);
      stderr.write('\n');
      if (error) reject(error);
      else resolve(typed);
    };
    const onData = (chunk: string): void => {
      for (const char of chunk) {
        if (char === '\r' || char === '\n' || char === '\u0004') return done();
        if (char === '\u0003') return done(new UsageError('interrupted'));
        if (char === '\u007f' || char === '\b') typed = typed.slice(0, -1);
        else typed += char;
      }
    };
    stdin.on('data', onData);
  });
}

/**
 * The private key to sign in with, from `--key-file`, else TOLLGATE_PRIVATE_KEY (environment or `.env`), else a
 * hidden prompt on a terminal. Never from the command line, where shells, `ps` and npm's banner would show it.
 */
export async function readPrivateKey(keyFile: string | undefined): Promise<`0x${string}`> {
  let key: string | undefined;
  if (keyFile !== undefined) key = readFileSync(keyFile, 'utf8');
  else key = setting('TOLLGATE_PRIVATE_KEY');
  if (key === undefined) {
    if (!process.stdin.isTTY) {
      throw new UsageError(
        'no private key: pass --key-file <path>, set TOLLGATE_PRIVATE_KEY or run in a terminal',
      );
    }
    key = await promptHidden('Private key (0x…, not shown): ');
  }
  key = key.trim();
  // Neither message quotes the key: it would end up in a terminal's scrollback or a CI log.
  if (!PRIVATE_KEY.test(key)) throw new UsageError('the private key must be 0x followed by 64 hex digits');
  const value = BigInt(key);
  if (value === 0n || value >= CURVE_ORDER) throw new UsageError(PRIVATE_KEY_OUT_OF_RANGE);
  return key as `0x${string}`;
}
