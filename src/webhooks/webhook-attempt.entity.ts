import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { WebhookDeliveryEntity } from './webhook-delivery.entity.js';
import { WebhookEndpointEntity } from './webhook-endpoint.entity.js';

/** The log of every request sent to a receiver: what `GET /webhooks/deliveries` shows. */
@Entity({ name: 'webhook_attempts' })
@Index('ix_webhook_attempts_endpoint_attempted_at', ['endpointId', 'attemptedAt'])
@Index('ix_webhook_attempts_delivery_id', ['deliveryId'])
export class WebhookAttemptEntity {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'pk_webhook_attempts' })
  id: string;

  @Column({ name: 'delivery_id', type: 'uuid' })
  deliveryId: string;

  @ManyToOne(() => WebhookDeliveryEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'delivery_id', foreignKeyConstraintName: 'fk_webhook_attempts_delivery' })
  delivery?: WebhookDeliveryEntity;

  /** Copied from the delivery so a configuration's recent attempts are one index range, not a join. */
  @Column({ name: 'endpoint_id', type: 'uuid' })
  endpointId: string;

  @ManyToOne(() => WebhookEndpointEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'endpoint_id', foreignKeyConstraintName: 'fk_webhook_attempts_endpoint' })
  endpoint?: WebhookEndpointEntity;

  @Column({ name: 'attempted_at', type: 'timestamptz', default: () => 'now()' })
  attemptedAt: Date;

  @Column({ type: 'boolean' })
  success: boolean;

  /** Null when no response arrived. */
  @Column({ name: 'status_code', type: 'integer', nullable: true })
  statusCode: number | null;

  @Column({ name: 'duration_ms', type: 'integer' })
  durationMs: number;

  @Column({ type: 'text', nullable: true })
  error: string | null;

  /** The start of the receiver's answer (at most 1 KiB), to help its owner debug. */
  @Column({ name: 'response_body', type: 'text', nullable: true })
  responseBody: string | null;
}
