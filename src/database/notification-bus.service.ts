import { Inject, Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import pg from 'pg';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/app-config.module.js';
import { Database, type SqlExecutor } from './database.service.js';

/** The channel on which instances tell each other to forget cached credentials. */
export const INVALIDATION_CHANNEL = 'tollgate_invalidations';
const RECONNECT_DELAY_MS = 1000;

export type InvalidationListener = (payload: string) => void;

/**
 * Cross-instance cache invalidation over PostgreSQL LISTEN/NOTIFY. A change publishes inside its own transaction, so
 * the notice goes out exactly when the change commits. While the listening connection is down a cache cannot know
 * what it missed: `healthy` turns false, caches must bypass themselves, and on reconnection they are told to clear.
 */
@Injectable()
export class NotificationBus implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(NotificationBus.name);
  private readonly listeners = new Set<InvalidationListener>();
  private readonly resetListeners = new Set<() => void>();
  private client: pg.Client | undefined;
  private connected = false;
  private stopped = false;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private readonly awaiting = new Map<string, Array<() => void>>();

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly db: Database,
  ) {}

  /** True while notifications are being received: only then may a cache answer without the database. */
  get healthy(): boolean {
    return this.connected;
  }

  onInvalidation(listener: InvalidationListener): void {
    this.listeners.add(listener);
  }

  /** Called whenever notifications may have been missed (the connection dropped). */
  onReset(listener: () => void): void {
    this.resetListeners.add(listener);
  }

  /** Publishes in the caller's transaction (delivered at commit), or on its own when no transaction is given. */
  async publish(payload: string, tx: SqlExecutor = this.db): Promise<void> {
    await tx.query('SELECT pg_notify($1, $2)', [INVALIDATION_CHANNEL, payload]);
  }

  /**
   * Resolves once this instance has received `payload` back (or after `timeoutMs`). A change that must take
   * effect everywhere waits for its own notification before answering: the server sends it to every listener at
   * the same moment, so by then the other instances have it too, bar scheduling noise.
   */
  delivered(payload: string, timeoutMs = 1000): Promise<void> {
    if (!this.connected) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, timeoutMs);
      timer.unref();
      const waiters = this.awaiting.get(payload) ?? [];
      waiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
      this.awaiting.set(payload, waiters);
    });
  }

  async onModuleInit(): Promise<void> {
    await this.connect();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.reconnectTimer);
    this.connected = false;
    await this.client?.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({
      connectionString: this.config.databaseUrl,
      application_name: 'tollgate-listen',
    });
    client.on('notification', (message) => {
      if (message.channel !== INVALIDATION_CHANNEL || message.payload === undefined) return;
      for (const listener of this.listeners) listener(message.payload);
      const waiters = this.awaiting.get(message.payload);
      this.awaiting.delete(message.payload);
      for (const resolve of waiters ?? []) resolve();
    });
    client.on('error', (error) => this.lost(client, error));
    client.on('end', () => this.lost(client));
    try {
      await client.connect();
      await client.query(`LISTEN ${INVALIDATION_CHANNEL}`);
      this.client = client;
      // Anything published while we were not listening is unknown: start from empty caches.
      for (const reset of this.resetListeners) reset();
      this.connected = true;
    } catch (error) {
      this.lost(client, error as Error);
    }
  }

  private lost(client: pg.Client, error?: Error): void {
    if (this.client && this.client !== client) return;
    const wasConnected = this.connected;
    this.connected = false;
    this.client = undefined;
    client.end().catch(() => undefined);
    if (this.stopped) return;
    if (wasConnected) this.logger.warn(`invalidation listener lost: ${error?.message ?? 'connection ended'}`);
    clearTimeout(this.reconnectTimer);
    this.reconnectTimer = setTimeout(() => void this.connect(), RECONNECT_DELAY_MS);
    this.reconnectTimer.unref();
  }
}
