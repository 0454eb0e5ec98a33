import { Injectable } from '@nestjs/common';
import { resolveTargetAddress } from '../auth/access/address-access.js';
import type { Principal } from '../auth/principal.js';
import { storageAddress } from '../common/address/wallet-address.js';
import type { Page, PageRequest } from '../common/pagination/cursor-page.js';
import type { EventDto, ListEventsQueryDto } from './dto/event.dto.js';
import type { EventType } from './event-types.js';
import { EventsErrors } from './events.errors.js';
import { EventsRepository } from './events.repository.js';

/** Reads the outbox for `GET /events`: the events the caller may see, as their webhooks carried them. */
@Injectable()
export class EventsService {
  constructor(private readonly repository: EventsRepository) {}

  async list(principal: Principal, query: ListEventsQueryDto, page: PageRequest): Promise<Page<EventDto>> {
    const { since, until } = query;
    if (since !== undefined && until !== undefined && Date.parse(since) > Date.parse(until)) {
      throw EventsErrors.invalidTimeRange();
    }
    // Operators see every address unless they name one; anyone else sees their own (and only their own).
    const address =
      query.address === undefined && principal.operator
        ? undefined
        : storageAddress(resolveTargetAddress(principal, query.address));
    const listed = await this.repository.list({ address, types: query.type, since, until }, page);
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
