import { Injectable } from '@nestjs/common';
import type { Principal } from '../auth/principal.js';
import { storageAddress } from '../common/address/wallet-address.js';
import type { Page, PageRequest } from '../common/pagination/cursor-page.js';
import { Database } from '../database/database.service.js';
import { WebhookUrlGuard } from './delivery/webhook-url.guard.js';
import { generateWebhookSecret } from './delivery/webhook-signer.js';
import { WebhookDeliveryService, type DeliveryResult } from './delivery/webhook-delivery.service.js';
import {
  WebhookDeliveryRepository,
  type WebhookAttemptRecord,
} from './delivery/webhook-delivery.repository.js';
import { WebhookErrors } from './webhooks.errors.js';
import {
  WebhooksRepository,
  type WebhookEndpointFields,
  type WebhookEndpointRecord,
} from './webhooks.repository.js';

export const MAX_WEBHOOKS_PER_WALLET = 10;
const ALL_EVENTS = ['*'];

export interface WebhookInput {
  id?: string;
  url: string;
  events?: string[];
  enabled?: boolean;
  /** Null clears it; undefined keeps it. */
  description?: string | null;
  rotateSecret?: boolean;
}

export interface SavedWebhook {
  record: WebhookEndpointRecord;
  /** Only when the configuration was created or its secret rotated. */
  secret?: string;
}

/** A wallet's webhook configurations: saving, listing, testing and their delivery log. */
@Injectable()
export class WebhooksService {
  constructor(
    private readonly db: Database,
    private readonly repository: WebhooksRepository,
    private readonly deliveryRepository: WebhookDeliveryRepository,
    private readonly deliveries: WebhookDeliveryService,
    private readonly urlGuard: WebhookUrlGuard,
  ) {}

  list(principal: Principal): Promise<WebhookEndpointRecord[]> {
    return this.repository.listByOwner(storageAddress(principal.address));
  }

  /**
   * Creates a configuration, or updates the caller's one named by `id` or, without `id`, the one with the same URL.
   * The URL is checked (syntax, then every address its host resolves to) before anything is written.
   */
  async save(principal: Principal, input: WebhookInput): Promise<SavedWebhook> {
    const owner = storageAddress(principal.address);
    const { url } = await this.urlGuard.check(input.url);
    const href = url.href;

    return this.db.transaction(async (tx) => {
      await this.repository.lockOwner(tx, owner);
      const existing = await this.repository.findForUpdate(
        tx,
        owner,
        input.id ? { id: input.id } : { url: href },
      );
      if (input.id && !existing) throw WebhookErrors.notFound();

      if (!existing) {
        if ((await this.repository.countByOwner(tx, owner)) >= MAX_WEBHOOKS_PER_WALLET) {
          throw WebhookErrors.limitReached(MAX_WEBHOOKS_PER_WALLET);
        }
        const secret = generateWebhookSecret();
        const fields: WebhookEndpointFields = {
          url: href,
          events: input.events ?? ALL_EVENTS,
          enabled: input.enabled ?? true,
          description: input.description ?? null,
          failingSince: null,
          disabledReason: null,
        };
        return { record: await this.repository.insert(tx, owner, fields, secret), secret };
      }

      if (href !== existing.url && (await this.repository.findForUpdate(tx, owner, { url: href }))) {
        throw WebhookErrors.urlTaken();
      }
      const reenabled = input.enabled === true && !existing.enabled;
      const fields: WebhookEndpointFields = {
        url: href,
        events: input.events ?? existing.events,
        enabled: input.enabled ?? existing.enabled,
        description: input.description === undefined ? existing.description : input.description,
        // Switching a configuration back on starts its health afresh, or the next failure would disable it again.
        failingSince: reenabled ? null : existing.failingSince,
        disabledReason: reenabled ? null : existing.disabledReason,
      };
      const secret = input.rotateSecret ? generateWebhookSecret() : undefined;
      return { record: await this.repository.update(tx, existing.id, fields, secret), secret };
    });
  }

  /** Sends a test event to the named configuration, or to each enabled one of the caller. */
  async test(principal: Principal, id?: string): Promise<DeliveryResult[]> {
    const owner = storageAddress(principal.address);
    let targets: WebhookEndpointRecord[];
    if (id) {
      const endpoint = await this.repository.findOwned(owner, id);
      if (!endpoint) throw WebhookErrors.notFound();
      targets = [endpoint];
    } else {
      targets = await this.repository.listEnabledByOwner(owner);
    }
    return this.deliveries.sendTest(
      principal.address,
      targets.map((endpoint) => endpoint.id),
    );
  }

  async listAttempts(
    principal: Principal,
    webhookId: string | undefined,
    page: PageRequest,
  ): Promise<Page<WebhookAttemptRecord>> {
    const owner = storageAddress(principal.address);
    if (webhookId && !(await this.repository.findOwned(owner, webhookId))) throw WebhookErrors.notFound();
    return this.deliveryRepository.listAttempts(owner, webhookId, page);
  }

  /** Deletes one of the caller's configurations with its delivery log; pending deliveries to it are dropped. */
  async delete(principal: Principal, id: string): Promise<void> {
    if (!(await this.repository.deleteOwned(storageAddress(principal.address), id))) {
      throw WebhookErrors.notFound();
    }
  }

  retry(principal: Principal, deliveryId: string): Promise<DeliveryResult> {
    return this.deliveries.retry(storageAddress(principal.address), deliveryId);
  }
}
