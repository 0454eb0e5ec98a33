import { readFileSync } from 'node:fs';

/** RLIMIT_NOFILE; `Infinity` for unlimited. */
export interface OpenFileLimits {
  soft: number;
  hard: number;
}

/** Descriptors kept for what is not a client connection: the database pool, logs, pipes, DNS, the metrics listener. */
export const RESERVED_DESCRIPTORS = 256;

/** Below this many descriptors a flood of idle connections fills the process quickly, even with the cap. */
export const LOW_OPEN_FILE_LIMIT = 4096;

const LIMIT_LINE = /^Max open files\s+(\S+)\s+(\S+)/m;

const limitValue = (text: string): number => (text === 'unlimited' ? Number.POSITIVE_INFINITY : Number(text));

/** This process's open-file limits, from /proc (Linux); undefined where they cannot be read. */
export function openFileLimits(): OpenFileLimits | undefined {
  let text: string;
  try {
    text = readFileSync('/proc/self/limits', 'utf8');
  } catch {
    return undefined;
  }
  const match = LIMIT_LINE.exec(text);
  if (!match) return undefined;
  const limits = { soft: limitValue(match[1]!), hard: limitValue(match[2]!) };
  return Number.isNaN(limits.soft) || Number.isNaN(limits.hard) ? undefined : limits;
}

/**
 * The warning a low open-file limit deserves at start, or undefined. Node itself raises the soft limit to the hard
 * one as it starts (so the soft limit of 1 024 containers are given is gone by then); what stays low is a low hard
 * limit, which only whoever starts the process can raise.
 */
export function openFileLimitWarning(limits = openFileLimits()): string | undefined {
  if (limits === undefined || limits.soft >= LOW_OPEN_FILE_LIMIT) return undefined;
  return (
    `the open-file limit is ${limits.soft} (hard limit ${limits.hard}), which a few hundred idle connections ` +
    'exhaust: raise it where the service is started (`ulimit -n`, `docker run --ulimit nofile=65536:65536`, ' +
    "systemd's LimitNOFILE); MAX_CONNECTIONS keeps connections below it meanwhile"
  );
}

/**
 * MAX_CONNECTIONS when unset: the soft open-file limit less {@link RESERVED_DESCRIPTORS}, so that connections alone
 * never take the last descriptors; undefined (no cap) where the limit cannot be read or is unlimited.
 */
export function defaultMaxConnections(limits = openFileLimits()): number | undefined {
  if (limits === undefined || !Number.isFinite(limits.soft)) return undefined;
  return Math.max(16, limits.soft - RESERVED_DESCRIPTORS);
}
