import { Inject, Module, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DASHBOARD_SECURITY_HEADERS } from '../common/http/security-headers.js';
import { ApiError } from '../common/errors/api-error.js';
import { toErrorResponse, withRequestId } from '../common/http/error-response.js';
import { APP_CONFIG } from '../config/app-config.module.js';
import type { AppConfig } from '../config/app-config.js';
import { DashboardBuild, defaultDashboardDir, type DashboardAsset } from './dashboard-assets.js';

/**
 * Serves the web dashboard (web/, built by `npm run build` into dist/web, or by `npm run dev` into DASHBOARD_DIR) at
 * /dashboard, and sends `/` there. The files are static and public: the page signs in through the public API like
 * any other client, and everything it shows comes from API calls made with the session cookie. Registered on
 * Fastify directly, like /docs, so the pages stay out of the API's route table, guards and OpenAPI document.
 */
@Module({})
export class DashboardModule implements OnModuleInit {
  constructor(
    private readonly adapterHost: HttpAdapterHost,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    // The delivery worker process (`npm run start:worker`) runs the modules without an HTTP server.
    const adapter = this.adapterHost.httpAdapter as HttpAdapterHost['httpAdapter'] | undefined;
    if (!adapter) return;
    const fastify = adapter.getInstance<FastifyInstance>();
    // Only `npm run dev` rebuilds the folder under a running service, and it runs outside production, though not
    // always as `development` (its end-to-end test runs under NODE_ENV=test).
    const build = new DashboardBuild(this.config.dashboardDir ?? defaultDashboardDir(), {
      reload: this.config.nodeEnv !== 'production',
    });
    const send = (reply: FastifyReply, asset: DashboardAsset): FastifyReply =>
      reply
        .headers(DASHBOARD_SECURITY_HEADERS)
        .header('cache-control', asset.immutable ? 'public, max-age=31536000, immutable' : 'no-cache')
        .type(asset.type)
        .send(asset.body);
    // These routes bypass Nest and its exception filter, so they answer with the error object themselves.
    const fail = (request: FastifyRequest, reply: FastifyReply, error: ApiError): FastifyReply => {
      const { status, body } = toErrorResponse(error);
      return reply
        .status(status)
        .type('application/json; charset=utf-8')
        .send(withRequestId(body, request.id));
    };

    fastify.get('/', (_request, reply) => reply.redirect('/dashboard', 302));
    fastify.get('/dashboard', (request, reply) => {
      const page = build.current()?.get('index.html');
      if (!page) {
        const message =
          'The dashboard is not built: run `npm run build` (it builds web/ into dist/web), then restart in production';
        return fail(request, reply, new ApiError(503, 'dashboard_not_built', message));
      }
      return send(reply, page);
    });
    fastify.get('/dashboard/*', (request, reply) => {
      const path = (request.params as { '*': string })['*'];
      const assets = build.current();
      const asset = path === '' ? assets?.get('index.html') : assets?.get(path);
      if (!asset) return fail(request, reply, ApiError.notFound('not_found', 'No such dashboard file'));
      return send(reply, asset);
    });
  }
}
