import { Inject, Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { Client, type Notification } from 'pg';
import { DATABASE_OPTIONS } from './database.service.js';
import type { DatabaseConnectionOptions } from './data-source.js';
import { sql, type Sql } from './sql.js';

/** After the session's connection is lost: the wait before the next try, doubling up to the maximum. */
const RECONNECT_MIN_MS = 500;
const RECONNECT_MAX_MS = 10_000;

/**
 * The advisory lock a process holds while it lives: its key, from the process's id. Another session's
 * `pg_try_advisory_xact_lock` on it succeeds only once the holder's session has ended.
 */
export function presenceLockKey(instance: Sql): Sql {
  return sql`hashtextextended('tollgate-instance:' || ${instance}::text, 0)`;
}

/**
 * This process's one session of its own with PostgreSQL, beside the pool: it holds the process's presence lock
 * (released by the server the moment the process or its connection dies, so others can tell a dead process's
 * claims at once) and `LISTEN`s for wake-ups. A session outlives transactions, so it needs PostgreSQL itself, not a
 * transaction pooler: with `DATABASE_POOLER=transaction` it connects to `DATABASE_SESSION_URL`, and without one there
 * is none (`available` is false) and its users fall back to what they do without it. One connection per process,
 * outside `DATABASE_POOL_SIZE`.
 */
@Injectable()
export class DatabaseSession implements OnModuleInit, OnApplicationShutdown {
  /** Identifies this process while it runs; its presence lock is keyed by it. */
  readonly instanceId = randomUUID();
  readonly available: boolean;
  private readonly url: string | undefined;
  private readonly logger = new Logger('DatabaseSession');
  private readonly listeners = new Map<string, () => void>();
  private client: Client | undefined;
  private present = false;
  private closing = false;
  /** Whether a failure to open the session was logged since it was last up: once per stretch. */
  private failureLogged = false;
  private reconnectMs = RECONNECT_MIN_MS;
  private reconnectTimer: NodeJS.Timeout | undefined;

  constructor(@Inject(DATABASE_OPTIONS) private readonly options: DatabaseConnectionOptions) {
    this.url = options.sessionUrl ?? (options.pooler === 'transaction' ? undefined : options.url);
    this.available = this.url !== undefined;
  }

  /** This process's id while its presence lock is held; null while the session is down (or there is none). */
  get presentAs(): string | null {
    return this.present ? this.instanceId : null;
  }

  /**
   * Calls `onNotify` for every notification on `channel`, and once after each reconnection (what was notified while
   * the session was down is lost). Does nothing without a session.
   */
  listen(channel: string, onNotify: () => void): void {
    if (!this.available) return;
    this.listeners.set(channel, onNotify);
    if (this.present) void this.client?.query(`LISTEN "${channel}"`).catch(() => undefined);
  }

  // Not awaited: the start does not wait on it (the pool's start has reached the database already), and until it
  // is up, claims record no owner and pollers poll.
  onModuleInit(): void {
    if (this.available) void this.connect();
  }

  async onApplicationShutdown(): Promise<void> {
    this.closing = true;
    clearTimeout(this.reconnectTimer);
    this.present = false;
    await this.client?.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    const client = new Client({
      connectionString: this.url,
      application_name: `${this.options.applicationName ?? 'tollgate'}-session`,
      connectionTimeoutMillis: 3000,
      keepAlive: true,
    });
    this.client = client;
    client.on('error', () => this.lost(client));
    client.on('end', () => this.lost(client));
    client.on('notification', (message: Notification) => this.listeners.get(message.channel)?.());
    try {
      await client.connect();
      const lock = presenceLockKey(sql`${this.instanceId}`);
      await client.query({ text: `SELECT pg_advisory_lock(${lock.text})`, values: lock.values });
      for (const channel of this.listeners.keys()) await client.query(`LISTEN "${channel}"`);
      this.present = true;
      this.failureLogged = false;
      this.reconnectMs = RECONNECT_MIN_MS;
      for (const onNotify of this.listeners.values()) onNotify();
    } catch (error) {
      if (!this.failureLogged && !this.closing) {
        this.failureLogged = true;
        this.logger.warn(
          `cannot open this process's own database session (${(error as Error).message}): retrying; meanwhile a ` +
            'crashed request keeps its Idempotency-Key for 60 s and idle delivery workers poll every second',
        );
      }
      this.lost(client);
    }
  }

  private lost(client: Client): void {
    if (this.client !== client) return;
    this.client = undefined;
    const wasPresent = this.present;
    this.present = false;
    void client.end().catch(() => undefined);
    if (this.closing) return;
    if (wasPresent) this.logger.warn('the database session was lost: reconnecting');
    this.reconnectTimer = setTimeout(() => void this.connect(), this.reconnectMs);
    this.reconnectMs = Math.min(this.reconnectMs * 2, RECONNECT_MAX_MS);
  }
}
