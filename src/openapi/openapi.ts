import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';
import * as yaml from 'js-yaml';
import { SESSION_COOKIE } from '../auth/session-cookie.js';
import { REQUEST_ID } from '../common/http/request-id.js';

export const OPENAPI_VERSION = '1.0.0';

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
Each protected operation lists the scopes that pass in \`x-required-scopes\`; a JWT carries every scope.`;

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
  for (const path of Object.values(document.paths)) {
    for (const method of ['get', 'put', 'post', 'delete', 'patch'] as const) {
      const operation = path[method];
      if (!operation) continue;
      operation.parameters = [...(operation.parameters ?? []), { $ref: '#/components/parameters/RequestId' }];
      for (const response of Object.values(operation.responses)) {
        if (!response || '$ref' in response) continue;
        response.headers = {
          ...response.headers,
          'x-request-id': { $ref: '#/components/headers/RequestId' },
        };
      }
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
    )
    .build();
  const document = SwaggerModule.createDocument(app, config, {
    operationIdFactory: (_controllerKey, methodKey) => methodKey,
  });
  return sortKeys(withRequestIds(document)) as OpenAPIObject;
}

/** The YAML form committed as docs/openapi.yaml and served at /docs/openapi.yaml. */
export function toYaml(document: OpenAPIObject): string {
  return yaml.dump(document, { noRefs: true, lineWidth: 120, sortKeys: true });
}
