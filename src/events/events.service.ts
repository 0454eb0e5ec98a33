import { Injectable } from '@nestjs/common';
import { resolveTargetAddress } from '../auth/access/address-access.js';
import type { Principal } from '../auth/principal.js';
import { storageAddress } from '../common/address/wallet-address.js';
import type { Page, PageRequest } from '../common/pagination/cursor-page.js';
import type { EventDto, ListEventsQueryDto } from './dto/event.dto.js';
import { SUBSCRIPTION_EVENT_TYPES, type EventType } from './event-types.js';
import { EventsErrors } from './events.errors.js';
import { EventsRepository, type EventFilter } from './events.repository.js';

/** Reads the outbox for `GET /events`: the events the caller may see, as their webhooks carried them. */
@Injectable()
export class EventsService {
  constructor(private readonly repository: EventsRepository) {}

  async list(principal: Principal, query: ListEventsQueryDto, page: PageRequest): Promise<Page<EventDto>> {
    const { since, until } = query;
    if (since !== undefined && until !== undefined && Date.parse(since) > Date.parse(until)) {
      throw EventsErrors.invalidTimeRange();
    }
    // Anyone sees every event of their own wallet. An operator sees other wallets' subscription events only, the
    // ones operators' webhooks receive: a wallet's keys and webhooks are its own business.
    const own = storageAddress(principal.address);
    const target =
      query.address === undefined
        ? undefined
        : storageAddress(resolveTargetAddress(principal, query.address));
    let filter: EventFilter;
    if (!principal.operator || target === own) {
      filter = { address: own, types: query.type, since, until };
    } else if (target === undefined) {
      const crossWallet = { own, types: SUBSCRIPTION_EVENT_TYPES };
      filter = { address: undefined, types: query.type, since, until, crossWallet };
    } else {
      const types = (query.type ?? SUBSCRIPTION_EVENT_TYPES).filter((type) =>
        SUBSCRIPTION_EVENT_TYPES.includes(type),
      );
      filter = { address: target, types, since, until };
    }
    const listed = await this.repository.list(filter, page);
    return {
      next: listed.next,
      items: listed.items.map((event) => ({
        id: event.id,
        type: event.type as EventType,
        createdAt: event.createdAt.toISOString(),
        data: event.data,
      })),
    };
  }
}
