import { ApiProperty } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsIn, IsOptional } from 'class-validator';
import { IsWalletAddress } from '../../common/address/is-wallet-address.decorator.js';
import type { Address } from '../../common/address/wallet-address.js';
import { IsTimestamp } from '../../common/validation/timestamp.js';
import { PAGE_DEFAULT_LIMIT, PAGE_MAX_LIMIT, PageQueryDto } from '../../common/pagination/cursor-page.js';
import { EVENT_TYPES, type EventType } from '../event-types.js';

/** `?type=a&type=b` and `?type=a,b` alike, each type once. */
const typeList = ({ value }: { value: unknown }): unknown => {
  const items = Array.isArray(value) ? (value as unknown[]) : [value];
  return [...new Set(items.flatMap((item) => (typeof item === 'string' ? item.split(',') : [item])))];
};

/** The events' query: one page (always: the list is every event of the retention window), and its filters. */
export class ListEventsQueryDto extends PageQueryDto {
  // Redeclared for its documentation only (the validation is PageQueryDto's): this list always pages, so the
  // default applies without a cursor too.
  @ApiProperty({
    required: false,
    type: 'integer',
    minimum: 1,
    maximum: PAGE_MAX_LIMIT,
    description: `Page size (default ${PAGE_DEFAULT_LIMIT}). When more events follow, the answer carries an \`X-Next-Cursor\` header.`,
  })
  declare limit?: number;

  @ApiProperty({
    required: false,
    isArray: true,
    enum: EVENT_TYPES,
    description:
      'Only events of these types: repeat the parameter (`type=a&type=b`) or separate them with commas.',
  })
  @IsOptional()
  @Transform(typeList, { toClassOnly: true })
  @IsArray()
  @ArrayMaxSize(EVENT_TYPES.length)
  @IsIn(EVENT_TYPES, { each: true })
  type?: EventType[];

  @ApiProperty({
    required: false,
    format: 'date-time',
    example: '2026-11-24T00:00:00Z',
    description: 'Only events at or after this instant (ISO 8601 with a time zone).',
  })
  @IsOptional()
  @IsTimestamp()
  since?: string;

  @ApiProperty({
    required: false,
    format: 'date-time',
    example: '2026-11-25T00:00:00Z',
    description: 'Only events strictly before this instant (ISO 8601 with a time zone).',
  })
  @IsOptional()
  @IsTimestamp()
  until?: string;

  @IsOptional()
  @IsWalletAddress({
    required: false,
    description:
      "Only the events about this wallet. Without it: the caller's own, or, for an operator (OPERATOR_ADDRESSES, and the API keys operators created), its own and every other address's subscription events. Another address needs an operator credential, else 403 `address_forbidden`, and lists its subscription events only.",
  })
  address?: Address;
}

const EVENT_EXAMPLE = {
  id: '0b8e3f52-6c1d-4f7a-9e2b-7d4c1a5f3e60',
  type: 'subscription.expiring',
  createdAt: '2026-12-19T01:30:04.512Z',
  data: {
    address: '0x52908400098527886E0F7030069857D2E4169EE7',
    status: 'active',
    active: true,
    currentPeriodStart: '2026-11-22T01:30:00.000Z',
    currentPeriodEnd: '2026-12-22T01:30:00.000Z',
    cancelAtPeriodEnd: false,
    canceledAt: null,
    createdAt: '2026-11-22T01:30:00.000Z',
    updatedAt: '2026-11-22T01:30:00.000Z',
    endsInSeconds: 259_195,
  },
};

/** An event as the webhooks carried it: the same id, type, time and data. */
export class EventDto {
  @ApiProperty({
    format: 'uuid',
    example: EVENT_EXAMPLE.id,
    description: "The event id: the webhook body's `id` and its `webhook-id` header.",
  })
  id: string;

  @ApiProperty({ enum: EVENT_TYPES, example: EVENT_EXAMPLE.type })
  type: EventType;

  @ApiProperty({
    format: 'date-time',
    example: EVENT_EXAMPLE.createdAt,
    description: "When the event happened: the webhook body's `timestamp`.",
  })
  createdAt: string;

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    example: EVENT_EXAMPLE.data,
    description:
      "The webhook body's `data`, as delivered; its shape per type is in the webhook events of this document.",
  })
  data: Record<string, unknown>;
}
