export declare const PGBOUNCER: string;

export interface PgBouncer {
  /** `databaseUrl` with the pooler's port: what the service is given as DATABASE_URL. */
  url: string;
  pid: number | undefined;
  /** What PgBouncer printed and logged so far. */
  log(): string;
  stop(): Promise<void>;
}

export declare function startPgBouncer(options: {
  databaseUrl: string;
  /** PgBouncer's `default_pool_size`: server connections per database and user. */
  serverPoolSize: number;
  /** PgBouncer's `max_client_conn`. */
  maxClients: number;
  startTimeoutMs?: number;
}): Promise<PgBouncer>;
