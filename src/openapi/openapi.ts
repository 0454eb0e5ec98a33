import type { INestApplication, Type } from '@nestjs/common';
import { ModulesContainer } from '@nestjs/core';
import { DocumentBuilder, getSchemaPath, SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';
import * as yaml from 'js-yaml';
import {
  ApiKeyCreatedEventDto,
  ApiKeyExpiredEventDto,
  ApiKeyExpiringEventDto,
  ApiKeyRevokedEventDto,
} from '../api-keys/dto/api-key-webhook-events.dto.js';
import { SubscriptionExpiringEventDto } from '../subscriptions/dto/subscription-expiring-event.dto.js';
import { SubscriptionTrialWillEndEventDto } from '../subscriptions/dto/subscription-trial-will-end-event.dto.js';
import { SESSION_COOKIE } from '../auth/session-cookie.js';
import { errorResponse, type ErrorStatus } from '../common/http/api-errors.decorator.js';
import type { EventType } from '../events/event-types.js';
import { ErrorResponseDto } from '../common/http/error-response.dto.js';
import { REQUEST_ID } from '../common/http/request-id.js';
import { NEXT_CURSOR_DESCRIPTION } from '../common/pagination/cursor-page.js';
import {
  SubscriptionCanceledEventDto,
  SubscriptionPlanChangedEventDto,
  SubscriptionPaymentFailedEventDto,
  SubscriptionRecoveredEventDto,
  SubscriptionExpiredEventDto,
  EntitlementsUpdatedEventDto,
  SubscriptionRenewedEventDto,
} from '../subscriptions/dto/subscription-webhook-events.dto.js';
import { WebhookTestEventDto } from '../webhooks/dto/webhook-test-event.dto.js';
import { declaredTags } from '../common/http/api-tag.js';

export const OPENAPI_VERSION = '1.2.0';

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, sortKeys((value as Record<string, unknown>)[key])]),
  );
}

const DESCRIPTION = `Subscriptions for wallet owners.

Wallet users log in by signing a Sign-In with Ethereum message (\`POST /auth/nonce\`, then \`POST /auth/verify\`)
and receive a 24-hour JWT, returned in the body and set as the HTTP-only \`${SESSION_COOKIE}\` cookie. Server-side
integrations use API keys (\`tg_…\`) in the same \`Authorization: Bearer\` header.

Every error is \`{"error": "<message>", "details": {"code": "<stable_code>", ...}}\`. Every success is 200.
Request bodies are JSON objects (\`Content-Type: application/json\`, at most 64 KiB) with only the documented
fields: anything else is 400, another content type 415. An operation without a documented body takes none, or
\`{}\`. No text field accepts a NUL character.
Each protected operation lists the scopes that pass in \`x-required-scopes\`; a JWT carries every scope. An
operation marked \`x-operator-only\` admits only operators (OPERATOR_ADDRESSES, or an API key an operator created):
anyone else gets 403 \`operator_required\`.
While the service's database cannot be reached (stopped, restarting, cut off), every operation that needs it
answers 503 \`database_unavailable\` at once: nothing was changed, the same request may be sent again shortly. In
the rare case the connection broke while a change was being committed, \`details.outcome\` is \`unknown\`: read
the current state (or repeat a renewal with its Idempotency-Key) before trying again. \`/health\` says when the
database is back.`;

const REQUEST_ID_DESCRIPTION =
  'Correlates a request with its log lines and its error object (`details.requestId`). A caller may send its ' +
  'own: 1 to 128 letters, digits, `.`, `_`, `:` or `-`; anything else, or none, is replaced by a new UUID. ' +
  'Every answer carries the id used.';

/** Every operation accepts `x-request-id` and every answer carries it (set for all routes in app.ts). */
function withRequestIds(document: OpenAPIObject): OpenAPIObject {
  const schema = { type: 'string' as const, pattern: REQUEST_ID.source };
  document.components = {
    ...document.components,
    parameters: {
      ...document.components?.parameters,
      RequestId: {
        name: 'x-request-id',
        in: 'header',
        required: false,
        description: REQUEST_ID_DESCRIPTION,
        schema,
      },
    },
    headers: {
      ...document.components?.headers,
      RequestId: { description: REQUEST_ID_DESCRIPTION, schema },
    },
  };
  for (const [, operation] of operationsOf(document)) {
    operation.parameters = [...(operation.parameters ?? []), { $ref: '#/components/parameters/RequestId' }];
    for (const response of Object.values(operation.responses)) {
      if (!response || '$ref' in response) continue;
      response.headers = {
        ...response.headers,
        'x-request-id': { $ref: '#/components/headers/RequestId' },
      };
    }
  }
  return document;
}

/**
 * Each event type, with the schema of the body it is delivered with: a `Record` over `EventType`, so a type added to
 * EVENT_TYPES does not compile until it is described here.
 */
const WEBHOOK_EVENTS: Readonly<Record<EventType, [model: Type<unknown>, summary: string]>> = {
  'subscription.renewed': [SubscriptionRenewedEventDto, 'A renewal was accepted.'],
  'subscription.plan_changed': [
    SubscriptionPlanChangedEventDto,
    'A change of plan took effect: to a dearer plan at once (the time left converted), to another at the period ' +
      'end it was scheduled for (applied by the background workers, once).',
  ],
  'subscription.canceled': [
    SubscriptionCanceledEventDto,
    'A cancel was accepted, or the service canceled at period end because the automatic renewal can no longer charge.',
  ],
  'subscription.payment_failed': [
    SubscriptionPaymentFailedEventDto,
    'An automatic charge failed: the subscription is `past_due`, with the reason and the next attempt.',
  ],
  'subscription.recovered': [
    SubscriptionRecoveredEventDto,
    'A subscription `past_due` after a failed charge was paid for (after its `subscription.renewed`); not sent ' +
      'when the charge had only waited for the chain.',
  ],
  'subscription.expired': [SubscriptionExpiredEventDto, 'A period ran out (within 60 s of its end).'],
  'api_key.created': [ApiKeyCreatedEventDto, 'The wallet created an API key.'],
  'api_key.revoked': [ApiKeyRevokedEventDto, 'The wallet revoked an API key.'],
  'api_key.expiring': [
    ApiKeyExpiringEventDto,
    'An API key expires within API_KEY_EXPIRY_NOTICE_HOURS (default 7 days): once per key, at creation when it is that close already.',
  ],
  'api_key.expired': [
    ApiKeyExpiredEventDto,
    'An API key reached its expiresAt (within 5 s): once per key. Revoked keys get neither expiry event.',
  ],
  'webhook.test': [WebhookTestEventDto, 'Sent by POST /webhooks/test.'],
  'subscription.expiring': [
    SubscriptionExpiringEventDto,
    'An active period ends within SUBSCRIPTION_EXPIRING_NOTICE_HOURS (once per period end; not sent for a trial ' +
      'that nothing paid follows, which gets `subscription.trial_will_end`).',
  ],
  'subscription.trial_will_end': [
    SubscriptionTrialWillEndEventDto,
    'A free trial ends within SUBSCRIPTION_EXPIRING_NOTICE_HOURS (once per trial; not when canceled). Operators ' +
      'receive it for every address.',
  ],
  'entitlements.updated': [
    EntitlementsUpdatedEventDto,
    "The wallet's features changed (a subscription to a plan with other features, its expiry, a cancel now, a " +
      'change of plan taking effect), in the transaction of the change. Operators receive it for every address.',
  ],
};

const WEBHOOK_HEADERS = {
  'webhook-id': 'The event id, the same on every retry: drop duplicates with it.',
  'webhook-timestamp': 'Unix seconds of this attempt: refuse old ones (5 minutes is usual).',
  'webhook-signature':
    '`v1,<base64 HMAC-SHA256>` over `<webhook-id>.<webhook-timestamp>.<raw body>` keyed with the secret; ' +
    'several, space-separated, while a secret rotation overlaps.',
};

/**
 * The deliveries a webhook receiver gets, as `x-webhooks` (OpenAPI 3.0 has no `webhooks`; 3.1's has the same
 * shape): one POST per event type, its body a component schema the generated client types.
 */
function withWebhooks(document: OpenAPIObject): OpenAPIObject {
  const webhooks = Object.fromEntries(
    Object.entries(WEBHOOK_EVENTS).map(([type, [model, summary]]) => [
      type,
      {
        post: {
          operationId: `${type.replace(/[._](\w)/g, (_match, letter: string) => letter.toUpperCase())}Webhook`,
          summary,
          description:
            'Sent to each enabled configuration subscribed to this event. Verify it before use (Standard Webhooks; ' +
            '`verifyWebhook` in @tollgate/client).',
          tags: ['webhooks'],
          security: [],
          parameters: Object.entries(WEBHOOK_HEADERS).map(([name, description]) => ({
            name,
            in: 'header',
            required: true,
            description,
            schema: { type: 'string' },
          })),
          requestBody: {
            required: true,
            content: { 'application/json': { schema: { $ref: getSchemaPath(model) } } },
          },
          responses: {
            '200': { description: 'Any 2xx within 10 s: delivered.' },
            '410': { description: 'Gone: the configuration is disabled at once.' },
          },
        },
      },
    ]),
  );
  return { ...document, 'x-webhooks': webhooks } as OpenAPIObject;
}

/**
 * OpenAPI 3.0.3 says `nullable` adds null only to the schema's own `type`: a nullable enum must list null, and a
 * nullable reference to a model needs a branch that is null. Without these, validators (and the linters) refuse
 * the document's own examples, e.g. `"erc20": null` in the free plan.
 */
function withExplicitNulls(value: unknown): void {
  if (Array.isArray(value)) return value.forEach(withExplicitNulls);
  if (value === null || typeof value !== 'object') return;
  const schema = value as Record<string, unknown>;
  if (schema.nullable === true) {
    if (Array.isArray(schema.enum) && !schema.enum.includes(null)) schema.enum = [...schema.enum, null];
    const allOf = schema.allOf as unknown[] | undefined;
    if (allOf?.length === 1) {
      delete schema.allOf;
      delete schema.type;
      delete schema.nullable;
      schema.anyOf = [allOf[0], { type: 'object', nullable: true, enum: [null] }];
    }
  }
  Object.values(schema).forEach(withExplicitNulls);
}

/** One operation (a method of a path) of the document. */
type OperationObject = NonNullable<OpenAPIObject['paths'][string]['get']>;

/** Every operation of the document, with its path. */
function* operationsOf(document: OpenAPIObject): Generator<[path: string, operation: OperationObject]> {
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of ['get', 'put', 'post', 'delete', 'patch'] as const) {
      const operation = item[method];
      if (operation) yield [path, operation];
    }
  }
}

/** An operation without a security requirement is public; `security: []` says so rather than leaving it unsaid. */
function withPublicSecurity(document: OpenAPIObject): OpenAPIObject {
  for (const [, operation] of operationsOf(document)) {
    if (!operation.security) operation.security = [];
  }
  return document;
}

const RATE_LIMIT_DESCRIPTION =
  'Only when the deployment sets RATE_LIMIT_PER_MINUTE (off by default): too many requests in the current minute, ' +
  'counted per client address on public routes and, on the others, per credential (API key or session token) and ' +
  'per wallet (all its sessions and keys together). ' +
  '`details.code`: `rate_limited`; `details.retryAfterSeconds` equals the `Retry-After` header. Health probes are ' +
  'never limited.';

/**
 * The 429's body, typed like every other error response (an untyped `details.code` would widen every operation's
 * union of codes to `string` in a generated client), with `details.retryAfterSeconds`.
 */
function rateLimitedContent() {
  const { content } = errorResponse(429, ['rate_limited']);
  const details = content['application/json'].schema.allOf[1].properties.details;
  details.required = ['code', 'retryAfterSeconds'];
  details.properties = { ...details.properties, retryAfterSeconds: { type: 'integer', minimum: 0 } };
  return content;
}

/**
 * The 429 every rate-limited operation may answer (app.ts registers the limiter on every route but the health
 * probes), described once as a component and referenced by each operation.
 */
function withRateLimits(document: OpenAPIObject): OpenAPIObject {
  const integer = { schema: { type: 'integer' as const, minimum: 0 } };
  document.components = {
    ...document.components,
    responses: {
      ...document.components?.responses,
      RateLimited: {
        description: RATE_LIMIT_DESCRIPTION,
        content: rateLimitedContent(),
        headers: {
          'Retry-After': { description: 'Seconds until the budget is renewed.', ...integer },
          'x-ratelimit-limit': { description: 'Requests allowed per minute.', ...integer },
          'x-ratelimit-remaining': { description: 'Requests left in the current minute.', ...integer },
          'x-ratelimit-reset': { description: 'Seconds until the current minute ends.', ...integer },
          'x-request-id': { $ref: '#/components/headers/RequestId' },
        },
      },
    },
  };
  for (const [path, operation] of operationsOf(document)) {
    if (path === '/health' || path.startsWith('/health/')) continue;
    operation.responses['429'] = { $ref: '#/components/responses/RateLimited' };
  }
  return document;
}

/** Refusals of any JSON body, whatever the route (app.ts, `bodyProblem`), by status. */
const BODY_ERRORS: ReadonlyArray<[status: ErrorStatus, codes: string[]]> = [
  [400, ['invalid_json', 'body_not_object', 'body_too_deep']],
  [413, ['payload_too_large']],
  [415, ['unsupported_media_type']],
];

/**
 * Every operation with a request body: its 400 lists the body-level codes, and 413 (over 64 KiB) and 415 (not
 * `application/json`: forms, multipart, text) are documented, each `details.code` an enum like the route's own.
 * Done here, once, so a new route cannot miss them.
 */
function withBodyErrors(document: OpenAPIObject): OpenAPIObject {
  for (const [, operation] of operationsOf(document)) {
    if (!operation.requestBody) continue;
    for (const [status, codes] of BODY_ERRORS) addErrorCodes(operation, status, codes);
  }
  return document;
}

/** Adds codes to the `details.code` enum of an operation's error response, keeping those it declares. */
function addErrorCodes(operation: OperationObject, status: ErrorStatus, codes: string[]): void {
  const existing = operation.responses[status];
  operation.responses[status] = {
    ...existing,
    ...errorResponse(status, [...declaredCodes(existing), ...codes]),
  };
}

/** The `details.code` enum of an error response written by ApiErrors. */
function declaredCodes(response: unknown): string[] {
  const schema = (response as { content?: Record<string, { schema?: unknown }> } | undefined)?.content?.[
    'application/json'
  ]?.schema as
    | { allOf?: Array<{ properties?: { details?: { properties?: { code?: { enum?: string[] } } } } }> }
    | undefined;
  return schema?.allOf?.[1]?.properties?.details?.properties?.code?.enum ?? [];
}

/** The operations that never query the database: the probes (which answer their own 503) and the plan's terms. */
const WITHOUT_DATABASE = new Set(['getHealth', 'getLiveness', 'getReadiness', 'getSubscriptionPlan']);

/**
 * Every other operation may answer 503 `database_unavailable` (src/database/database.errors.ts), added to the
 * 503 codes it declares itself. Done here, once, so a new route cannot miss it.
 */
function withDatabaseErrors(document: OpenAPIObject): OpenAPIObject {
  for (const [, operation] of operationsOf(document)) {
    if (!WITHOUT_DATABASE.has(operation.operationId ?? ''))
      addErrorCodes(operation, 503, ['database_unavailable']);
  }
  return document;
}

/**
 * Every list that takes a `cursor` documents the `X-Next-Cursor` header of its 200 answer, so a generated client
 * types it (and can page without reading raw headers) even when a route forgets to declare it.
 */
function withNextCursors(document: OpenAPIObject): OpenAPIObject {
  for (const path of Object.values(document.paths)) {
    const operation = path.get;
    const ok = operation?.responses['200'];
    if (!operation || !ok || '$ref' in ok) continue;
    const paged = operation.parameters?.some(
      (parameter) => !('$ref' in parameter) && parameter.in === 'query' && parameter.name === 'cursor',
    );
    if (!paged) continue;
    const headers = ok.headers ?? {};
    if (!Object.keys(headers).some((name) => name.toLowerCase() === 'x-next-cursor')) {
      ok.headers = {
        ...headers,
        'X-Next-Cursor': { description: NEXT_CURSOR_DESCRIPTION, schema: { type: 'string' } },
      };
    }
  }
  return document;
}

/** Builds the OpenAPI document of an initialised (not necessarily listening) app, with sorted keys. */
export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setOpenAPIVersion('3.0.3')
    .setTitle('Tollgate API')
    .setDescription(DESCRIPTION)
    .setVersion(OPENAPI_VERSION)
    .addServer('/', 'The Tollgate instance that serves this document (GET /docs/openapi.yaml).')
    .addBearerAuth(
      {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'JWT',
        description: 'Session JWT from POST /auth/verify.',
      },
      'jwt',
    )
    .addBearerAuth(
      {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'API key',
        description: 'API key `tg_…` from POST /api-keys.',
      },
      'apiKey',
    )
    .addCookieAuth(
      SESSION_COOKIE,
      {
        type: 'apiKey',
        in: 'cookie',
        name: SESSION_COOKIE,
        description: 'Session cookie set by POST /auth/verify (browsers).',
      },
      'cookie',
    );
  const tags = declaredTags(app.get(ModulesContainer));
  for (const { name, description } of tags) config.addTag(name, description);
  const document = SwaggerModule.createDocument(app, config.build(), {
    operationIdFactory: (_controllerKey, methodKey) => methodKey,
    extraModels: [ErrorResponseDto, ...Object.values(WEBHOOK_EVENTS).map(([model]) => model)],
  });
  const described = new Set(tags.map(({ name }) => name));
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item) as [string, { tags?: string[] }][]) {
      const undescribed = (operation.tags ?? []).filter((tag) => !described.has(tag));
      if (undescribed.length > 0) {
        throw new Error(
          `${method.toUpperCase()} ${path}: tag ${undescribed.join(', ')} has no description; declare it with @ApiTag`,
        );
      }
    }
  }
  // Proprietary: named, with no licence text to link to.
  document.info.license = { name: 'Proprietary' };
  const complete = withWebhooks(
    withPublicSecurity(
      withRateLimits(withRequestIds(withNextCursors(withDatabaseErrors(withBodyErrors(document))))),
    ),
  );
  withExplicitNulls(complete.components);
  return sortKeys(complete) as OpenAPIObject;
}

/** The YAML form committed as docs/openapi.yaml and served at /docs/openapi.yaml. */
export function toYaml(document: OpenAPIObject): string {
  return yaml.dump(document, { noRefs: true, lineWidth: 120, sortKeys: true });
}
