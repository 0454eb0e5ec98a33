import { Injectable } from '@nestjs/common';
import {
  toPage,
  type Page,
  type PagePosition,
  type PageRequest,
} from '../../common/pagination/cursor-page.js';
import { Database } from '../../database/database.service.js';
import { empty, raw, sql } from '../../database/sql.js';
import { keysetPage } from '../../database/keyset-page.js';
import { selectList } from '../../database/select-list.js';
import { WebhookAttemptEntity } from '../webhook-attempt.entity.js';
import { WebhookDeliveryEntity, type WebhookDeliveryStatus } from '../webhook-delivery.entity.js';

const ATTEMPT = [
  'id',
  'deliveryId',
  'endpointId',
  'attemptedAt',
  'success',
  'statusCode',
  'durationMs',
  'error',
  'responseBody',
] as const satisfies readonly (keyof WebhookAttemptEntity)[];

const ATTEMPT_DELIVERY = [
  'eventId',
  'eventType',
  'nextAttemptAt',
] as const satisfies readonly (keyof WebhookDeliveryEntity)[];

/** A line of the delivery log: the attempt, and where its delivery stands now. */
export type WebhookAttemptRecord = Pick<WebhookAttemptEntity, (typeof ATTEMPT)[number]> &
  Pick<WebhookDeliveryEntity, (typeof ATTEMPT_DELIVERY)[number]> & { deliveryStatus: WebhookDeliveryStatus };

const ATTEMPT_COLUMNS = raw(`${selectList(WebhookAttemptEntity, ATTEMPT, 'a')},
  ${selectList(WebhookDeliveryEntity, ATTEMPT_DELIVERY, 'd')}, d.status AS "deliveryStatus"`);

/** Reads the delivery log (the queue, `queue/`, writes it). */
@Injectable()
export class WebhookDeliveryRepository {
  constructor(private readonly db: Database) {}

  /** The owner's most recent attempts, newest first, optionally of one configuration; a keyset page. */
  async listAttempts(
    ownerAddress: string,
    endpointId: string | undefined,
    page: PageRequest,
  ): Promise<Page<WebhookAttemptRecord>> {
    const keyset = keysetPage({ time: 'a.attempted_at', tiebreaker: 'a.id', tiebreakerType: 'uuid' }, page);
    const { rows } = await this.db.run<WebhookAttemptRecord & { position: PagePosition }>(
      sql`SELECT ${ATTEMPT_COLUMNS}, ${keyset.position}
       FROM webhook_attempts a
       JOIN webhook_endpoints e ON e.id = a.endpoint_id
       JOIN webhook_deliveries d ON d.id = a.delivery_id
       WHERE e.owner_address = ${ownerAddress}
         ${endpointId ? sql`AND a.endpoint_id = ${endpointId}::uuid` : empty}
         AND ${keyset.after}
       ORDER BY a.attempted_at DESC, a.id DESC ${keyset.limit}`,
    );
    return toPage(rows, page.limit);
  }
}
