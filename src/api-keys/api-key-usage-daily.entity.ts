import { Check, Column, Entity, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { ApiKeyEntity } from './api-key.entity.js';

/**
 * Requests a key authenticated per UTC day. Each instance counts in memory and adds its counts here every few
 * seconds in one upsert (ApiKeyUsageTracker); days older than the listing's 30 are purged.
 */
@Entity({ name: 'api_key_usage_daily' })
@Check('ck_api_key_usage_daily_count_positive', `count > 0`)
export class ApiKeyUsageDailyEntity {
  @PrimaryColumn({ name: 'key_id', type: 'uuid', primaryKeyConstraintName: 'pk_api_key_usage_daily' })
  keyId: string;

  @ManyToOne(() => ApiKeyEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'key_id', foreignKeyConstraintName: 'fk_api_key_usage_daily_key' })
  key?: ApiKeyEntity;

  /** The UTC day, as pg returns a `date`: `YYYY-MM-DD`. */
  @PrimaryColumn({ type: 'date', primaryKeyConstraintName: 'pk_api_key_usage_daily' })
  day: string;

  /** pg returns a bigint as a string. */
  @Column({ type: 'bigint' })
  count: string;
}
