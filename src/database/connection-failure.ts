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
 * 57P03 cannot_connect_now (starting up, shutting down, in recovery), 53300 too_many_connections; class 08 is
 * connection_exception.
 */
const SERVER_GONE_STATES = new Set(['57P01', '57P02', '57P03', '53300']);

/** node-postgres' own messages for a connection that broke or could not be made in time (pg, pg-pool). */
const DRIVER_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error and is not queryable',
  'Client was closed and is not queryable',
];

/**
 * Whether `error` says the database could not be reached (refused, reset, timed out, stopped, restarting), as
 * opposed to refusing a statement. The one place this is decided: such errors answer 503 `database_unavailable`.
 */
export function isConnectionFailure(error: unknown, depth = 0): boolean {
  if (typeof error !== 'object' || error === null || depth > 4) return false;
  const { code, message, cause } = error as { code?: unknown; message?: unknown; cause?: unknown };
  if (typeof code === 'string') {
    if (SOCKET_CODES.has(code) || SERVER_GONE_STATES.has(code)) return true;
    if (/^08[0-9A-Z]{3}$/.test(code)) return true;
  }
  if (typeof message === 'string' && DRIVER_MESSAGES.some((known) => message.startsWith(known))) return true;
  // Connecting to a name with several addresses fails with one error per address.
  if (
    error instanceof AggregateError &&
    error.errors.some((inner) => isConnectionFailure(inner, depth + 1))
  ) {
    return true;
  }
  return isConnectionFailure(cause, depth + 1);
}
