import {
  Check,
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
} from 'typeorm';
import { EventEntity } from '../events/event.entity.js';
import { WebhookEndpointEntity } from './webhook-endpoint.entity.js';

export const WEBHOOK_DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export type WebhookDeliveryStatus = (typeof WEBHOOK_DELIVERY_STATUSES)[number];

/**
 * One event owed to one configuration. The pending rows are also the delivery workers' queue: a worker claims due
 * ones (`next_attempt_at`) for the lease in `locked_until`.
 */
@Entity({ name: 'webhook_deliveries' })
@Index('ux_webhook_deliveries_endpoint_event', ['endpointId', 'eventId'], { unique: true })
@Index('ix_webhook_deliveries_event_id', ['eventId'])
@Index('ix_webhook_deliveries_pending_next_attempt_at', ['nextAttemptAt'], { where: `status = 'pending'` })
// Due retries are claimed before first attempts (the queue's claim): this one reads them in due order.
@Index('ix_webhook_deliveries_pending_retry_next_attempt_at', ['nextAttemptAt'], {
  where: `status = 'pending' AND attempt_count > 0`,
})
@Check('ck_webhook_deliveries_status', `status IN ('pending', 'succeeded', 'failed')`)
export class WebhookDeliveryEntity {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'pk_webhook_deliveries' })
  id: string;

  @Column({ name: 'endpoint_id', type: 'uuid' })
  endpointId: string;

  @ManyToOne(() => WebhookEndpointEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'endpoint_id', foreignKeyConstraintName: 'fk_webhook_deliveries_endpoint' })
  endpoint?: WebhookEndpointEntity;

  /** Also the `webhook-id` header: the same on every attempt, so receivers can drop duplicates. */
  @Column({ name: 'event_id', type: 'uuid' })
  eventId: string;

  @ManyToOne(() => EventEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'event_id', foreignKeyConstraintName: 'fk_webhook_deliveries_event' })
  event?: EventEntity;

  @Column({ name: 'event_type', type: 'varchar', length: 64 })
  eventType: string;

  /** The exact request body, byte for byte what is signed and sent on every attempt. */
  @Column({ type: 'text' })
  payload: string;

  @Column({ type: 'varchar', length: 16, default: 'pending' })
  status: WebhookDeliveryStatus;

  @Column({ name: 'attempt_count', type: 'integer', default: 0 })
  attemptCount: number;

  /** When the next attempt is due; null once the delivery has succeeded or failed. */
  @Column({ name: 'next_attempt_at', type: 'timestamptz', nullable: true })
  nextAttemptAt: Date | null;

  /** The lease of whoever is attempting the delivery right now, so no two attempts of it overlap. */
  @Column({ name: 'locked_until', type: 'timestamptz', nullable: true })
  lockedUntil: Date | null;

  @Column({ name: 'last_status_code', type: 'integer', nullable: true })
  lastStatusCode: number | null;

  @Column({ name: 'last_error', type: 'text', nullable: true })
  lastError: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
