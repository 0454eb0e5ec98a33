import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { OpenAPIObject } from '@nestjs/swagger';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyReply, FastifyRequest } from 'fastify';
import helmet, { type HelmetOptions } from 'helmet';
import {
  API_SECURITY_HEADERS,
  HELMET_OPTIONS,
  isHttpsRequest,
  PLAIN_HTTP_HELMET_OPTIONS,
} from '../common/http/security-headers.js';
import { toYaml } from './openapi.js';

const PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <title>Tollgate API</title>
    <link rel="stylesheet" href="/docs/swagger-ui.css" />
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="/docs/swagger-ui-bundle.js"></script>
    <script src="/docs/swagger-ui-standalone-preset.js"></script>
    <script src="/docs/swagger-initializer.js"></script>
  </body>
</html>
`;

const INITIALIZER = `window.onload = function () {
  window.ui = SwaggerUIBundle({
    url: '/docs/openapi.json',
    dom_id: '#swagger-ui',
    deepLinking: true,
    persistAuthorization: true,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
    layout: 'StandaloneLayout',
  });
};
`;

const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'application/javascript; charset=utf-8',
  'swagger-ui-standalone-preset.js': 'application/javascript; charset=utf-8',
};

/**
 * Swagger UI's prebuilt assets, from the `swagger-ui-dist` package. Its entry point would evaluate the 3.4 MB
 * browser bundle inside the server (about 10 MB of heap for nothing), so only the directory is resolved.
 */
const SWAGGER_UI_DIR = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

/**
 * Serves the interactive page at /docs and the document at /docs/openapi.yaml and /docs/openapi.json. The YAML is
 * the exact text `npm run openapi` commits, so what a client downloads is what the repository reviews. The
 * document is rendered once at start; Swagger UI's assets (4.5 MB) are read on their first request and kept.
 */
export function serveDocs(app: NestFastifyApplication, document: OpenAPIObject): void {
  const fastify = app.getHttpAdapter().getInstance();
  const yamlText = toYaml(document);
  const jsonText = JSON.stringify(document);
  // An HTML page and its scripts: helmet's full set, set on the raw response before Fastify writes its own headers
  // (the API's, which forbid any content and caching, are replaced by helmet's and the cache-control below).
  const overHttps = helmet(HELMET_OPTIONS as HelmetOptions);
  const overHttp = helmet(PLAIN_HTTP_HELMET_OPTIONS as HelmetOptions);
  const answer = (
    request: FastifyRequest,
    reply: FastifyReply,
    type: string,
    body: string | Buffer,
  ): void => {
    for (const name of Object.keys(API_SECURITY_HEADERS)) void reply.removeHeader(name);
    const withHelmet = isHttpsRequest(request) ? overHttps : overHttp;
    withHelmet(request.raw, reply.raw, () => {
      void reply.header('cache-control', 'public, max-age=300').type(type).send(body);
    });
  };
  const send = (path: string, type: string, body: string | Buffer): void => {
    fastify.get(path, (request, reply) => answer(request, reply, type, body));
  };
  send('/docs', 'text/html; charset=utf-8', PAGE);
  send('/docs/swagger-initializer.js', 'application/javascript; charset=utf-8', INITIALIZER);
  send('/docs/openapi.yaml', 'application/yaml; charset=utf-8', yamlText);
  send('/docs/openapi.json', 'application/json; charset=utf-8', jsonText);
  for (const [file, type] of Object.entries(ASSETS)) {
    let body: Promise<Buffer> | undefined;
    const read = (): Promise<Buffer> => {
      body = readFile(join(SWAGGER_UI_DIR, file));
      // A failed read is not kept: the next request tries again.
      body.catch(() => (body = undefined));
      return body;
    };
    fastify.get(`/docs/${file}`, async (request, reply) => {
      answer(request, reply, type, await (body ?? read()));
      return reply;
    });
  }
}
