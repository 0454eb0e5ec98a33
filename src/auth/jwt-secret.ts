import { randomBytes } from 'node:crypto';
import {
  closeSync,
  fsyncSync,
  linkSync,
  mkdirSync,
  openSync,
  readFileSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';

/** An HS256 key shorter than this is refused, wherever it comes from. */
export const MIN_JWT_SECRET_BYTES = 32;

export class JwtSecretFileError extends Error {
  constructor(file: string, length: number) {
    super(
      `${file} holds a ${length}-byte JWT secret; at least ${MIN_JWT_SECRET_BYTES} bytes are required. ` +
        'Delete the file to have a new secret generated (every session ends), or set JWT_SECRET.',
    );
    this.name = 'JwtSecretFileError';
  }
}

function readSecret(file: string): string {
  const secret = readFileSync(file, 'utf8').trim();
  const length = Buffer.byteLength(secret, 'utf8');
  // An empty or truncated file (a crash of an older version between create and write) would be a guessable key.
  if (length < MIN_JWT_SECRET_BYTES) throw new JwtSecretFileError(file, length);
  return secret;
}

/**
 * Outside production JWT_SECRET may be unset: a secret is generated once and kept in DATA_DIR, so sessions survive
 * restarts without anyone having to invent a secret for a local run.
 *
 * The file appears complete or not at all: the secret is written to a private temporary file, flushed to disk, and
 * published with link(), which unlike rename() never replaces an existing file. Of several processes starting at
 * once (cluster workers) exactly one publishes, and the others read what it published.
 */
export function loadOrCreateJwtSecret(dataDir: string): string {
  const file = join(dataDir, 'jwt-secret');
  try {
    return readSecret(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const temporary = join(dataDir, `.jwt-secret.${process.pid}.${randomBytes(6).toString('hex')}`);
  const fd = openSync(temporary, 'wx', 0o600);
  try {
    writeSync(fd, randomBytes(48).toString('base64url'));
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    linkSync(temporary, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    unlinkSync(temporary);
  }
  // Make the new name durable too, so a crash cannot lose a secret that sessions were already signed with.
  const dir = openSync(dataDir, 'r');
  try {
    fsyncSync(dir);
  } finally {
    closeSync(dir);
  }
  return readSecret(file);
}

/** The configured JWT_SECRET, or outside production the one kept in DATA_DIR. */
export function resolveJwtSecret(config: { jwtSecret: string | undefined; dataDir: string }): string {
  return config.jwtSecret ?? loadOrCreateJwtSecret(config.dataDir);
}
