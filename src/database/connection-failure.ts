/** Socket errors meaning the server cannot be reached or the connection broke, not that a statement was wrong. */
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/**
 * SQLSTATEs of a server going away or refusing sessions: 57P01 admin_shutdown (a fast stop), 57P02 crash_shutdown,
 * 57P03 cannot_connect_now (starting up, shutting down, in recovery); class 08 is connection_exception.
 */
const SERVER_GONE_STATES = new Set(['57P01', '57P02', '57P03']);

/** 53300 too_many_connections: every connection slot is taken (`max_connections`, or those left to superusers). */
const TOO_MANY_CONNECTIONS = '53300';

/**
 * The same refusal in words, for errors that carry no SQLSTATE of their own: PostgreSQL's, and PgBouncer's when its
 * client limit is reached or no server connection freed up in time (it answers those with the generic 08P01).
 */
const SLOT_MESSAGES = [
  'sorry, too many clients already',
  'remaining connection slots are reserved',
  'no more connections allowed',
  'query_wait_timeout',
];

/** node-postgres' own messages for a connection that broke or could not be made in time (pg, pg-pool). */
const DRIVER_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error and is not queryable',
  'Client was closed and is not queryable',
];

/**
 * Why a connection-level failure happened: the database cannot be reached (refused, reset, timed out, stopped,
 * restarting), or it answers but has no connection slot left for this one (PostgreSQL's `max_connections`, or a
 * pooler's limits): a budget to fix, not an outage to wait out.
 */
export type ConnectionFailureReason = 'unreachable' | 'too_many_connections';

/**
 * The reason `error` is a connection-level failure, or undefined when it is not one (a statement was refused). The
 * one place this is decided: such errors answer 503 `database_unavailable`.
 */
export function connectionFailureReason(error: unknown, depth = 0): ConnectionFailureReason | undefined {
  if (typeof error !== 'object' || error === null || depth > 4) return undefined;
  const { code, message, cause } = error as { code?: unknown; message?: unknown; cause?: unknown };
  if (code === TOO_MANY_CONNECTIONS) return 'too_many_connections';
  if (typeof message === 'string' && SLOT_MESSAGES.some((known) => message.includes(known))) {
    return 'too_many_connections';
  }
  if (typeof code === 'string') {
    if (SOCKET_CODES.has(code) || SERVER_GONE_STATES.has(code)) return 'unreachable';
    if (/^08[0-9A-Z]{3}$/.test(code)) return 'unreachable';
  }
  if (typeof message === 'string' && DRIVER_MESSAGES.some((known) => message.startsWith(known))) {
    return 'unreachable';
  }
  // Connecting to a name with several addresses fails with one error per address.
  if (error instanceof AggregateError) {
    const reasons = error.errors.map((inner) => connectionFailureReason(inner, depth + 1));
    return reasons.find((reason) => reason === 'too_many_connections') ?? reasons.find(Boolean);
  }
  return connectionFailureReason(cause, depth + 1);
}

/** Whether `error` is a connection-level failure of either kind (see connectionFailureReason). */
export function isConnectionFailure(error: unknown): boolean {
  return connectionFailureReason(error) !== undefined;
}
