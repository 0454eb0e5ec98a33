import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiProperty, ApiResponse } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import type { FastifyReply } from 'fastify';
import { ApiError } from '../errors/api-error.js';

/** The answer header that carries the cursor of the next page; absent on the last page. */
export const NEXT_CURSOR_HEADER = 'x-next-cursor';
export const PAGE_DEFAULT_LIMIT = 50;
export const PAGE_MAX_LIMIT = 200;

/**
 * Where a page ends in a list ordered by (time, tiebreaker) descending: the time in microseconds since the epoch
 * (PostgreSQL's precision; a JavaScript Date would round it and skip or repeat rows) and the tiebreaker.
 */
export interface PagePosition {
  micros: string;
  tiebreaker: string;
}

/** The page a request asked for: how many, and after which position (none: from the newest). */
export interface PageRequest {
  limit: number;
  after: PagePosition | undefined;
}

export interface Page<T> {
  items: T[];
  next: PagePosition | undefined;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** Lower case only: a cursor is the service's own text, never a client's spelling. */
const isLowerUuid = (value: string): boolean => UUID.test(value);
const DIGITS = /^\d{1,19}$/;
/** PostgreSQL's `bigint`: a larger id would fail the query's cast. */
const MAX_BIGINT = 2n ** 63n - 1n;
/** 9999-12-31T23:59:59.999999Z in microseconds: well inside `timestamptz`, and later than any stored row. */
const MAX_MICROS = 253_402_300_799_999_999n;

const digitsUpTo =
  (max: bigint) =>
  (value: string): boolean =>
    DIGITS.test(value) && BigInt(value) <= max;

/**
 * The lists that page, each with the shape of its tiebreaker. A cursor names its list, so it fits no other. Every
 * value a cursor carries is checked to be one PostgreSQL accepts: a cursor is client input, never a 500.
 */
const LISTS = {
  api_keys: isLowerUuid,
  events: isLowerUuid,
  subscription_history: digitsUpTo(MAX_BIGINT),
  webhook_attempts: isLowerUuid,
} as const;
const isMicros = digitsUpTo(MAX_MICROS);
export type PagedList = keyof typeof LISTS;
/** Every list that pages: each is named by the one route that serves it (`ApiPagedResponse`'s `list`). */
export const PAGED_LISTS = Object.keys(LISTS) as PagedList[];
/** Whether `value` has the shape of the list's tiebreaker (a cursor carrying another is refused). */
export const fitsTiebreaker = (list: PagedList, value: string): boolean => LISTS[list](value);
/** The handler metadata under which `ApiPagedResponse` records the list a route pages. */
export const PAGED_LIST = 'tollgate:paged-list';

export const PageErrors = {
  invalidCursor: () =>
    ApiError.badRequest(
      'invalid_cursor',
      'cursor is not a cursor of this list: pass the X-Next-Cursor header of the previous page unchanged',
    ),
};

export function encodeCursor(list: PagedList, position: PagePosition): string {
  return Buffer.from(JSON.stringify([list, position.micros, position.tiebreaker])).toString('base64url');
}

export function decodeCursor(list: PagedList, cursor: string): PagePosition {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw PageErrors.invalidCursor();
  }
  if (
    !Array.isArray(parsed) ||
    parsed.length !== 3 ||
    parsed[0] !== list ||
    typeof parsed[1] !== 'string' ||
    !isMicros(parsed[1]) ||
    typeof parsed[2] !== 'string' ||
    !LISTS[list](parsed[2])
  ) {
    throw PageErrors.invalidCursor();
  }
  return { micros: parsed[1], tiebreaker: parsed[2] };
}

/** `limit` and `cursor`: sending either asks for one page; without both, the route answers its own first page. */
export class PageQueryDto {
  @ApiProperty({
    required: false,
    type: 'integer',
    minimum: 1,
    maximum: PAGE_MAX_LIMIT,
    description: `Page size (default ${PAGE_DEFAULT_LIMIT} when \`cursor\` is sent). When more items follow, the answer carries an \`X-Next-Cursor\` header.`,
  })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(PAGE_MAX_LIMIT)
  limit?: number;

  @ApiProperty({
    required: false,
    maxLength: 512,
    description: 'The `X-Next-Cursor` header of the previous page, unchanged: the page after it.',
  })
  @IsOptional()
  @IsString()
  @MaxLength(512)
  cursor?: string;
}

/** The page a query asks for, or undefined when it sends no pagination parameter (the route's first page then). */
export function pageRequest(list: PagedList, query: PageQueryDto): PageRequest | undefined {
  if (query.limit === undefined && query.cursor === undefined) return undefined;
  return {
    limit: query.limit ?? PAGE_DEFAULT_LIMIT,
    after: query.cursor === undefined ? undefined : decodeCursor(list, query.cursor),
  };
}

/** Sets `X-Next-Cursor` when another page follows, and returns the page's items (the body stays an array). */
export function sendPage<T>(reply: FastifyReply, list: PagedList, page: Page<T>): T[] {
  if (page.next) void reply.header(NEXT_CURSOR_HEADER, encodeCursor(list, page.next));
  return page.items;
}

/**
 * The rows of one page: `rows` were fetched with LIMIT `limit + 1`, each with its position; the extra row only
 * says that another page follows.
 */
export function toPage<T>(rows: Array<T & { position: PagePosition }>, limit: number): Page<T> {
  const items = rows.slice(0, limit).map(({ position: _position, ...item }) => item as unknown as T);
  return { items, next: rows.length > limit ? rows[limit - 1]!.position : undefined };
}

/** The `X-Next-Cursor` header's description, in every list's answer (and added by the OpenAPI writer). */
export const NEXT_CURSOR_DESCRIPTION =
  'Present when another page follows: pass it as `cursor` to get that page.';

/**
 * Documents the `X-Next-Cursor` header on a paged list's 200 answer, and records which list the route pages, so
 * the hostile-input tests find every paged route and its cursors themselves.
 */
export function ApiPagedResponse(options: {
  type: new () => unknown;
  description: string;
  list: PagedList;
}): MethodDecorator {
  return applyDecorators(
    SetMetadata(PAGED_LIST, options.list),
    ApiResponse({
      status: 200,
      type: options.type,
      isArray: true,
      description: options.description,
      headers: {
        'X-Next-Cursor': {
          description: NEXT_CURSOR_DESCRIPTION,
          schema: { type: 'string' },
        },
      },
    }),
  );
}
