import { Controller, Get, HttpStatus, Res } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { HealthCheckService } from '@nestjs/terminus';
import type { FastifyReply } from 'fastify';
import { Public } from '../auth/decorators/public.decorator.js';
import { SERVICE_VERSION } from '../common/version.js';
import { DatabaseHealthIndicator } from './database.health.js';
import { HealthDto, type DependencyCheckDto } from './health.dto.js';

const startedAt = Date.now();

@ApiTags('health')
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly database: DatabaseHealthIndicator,
  ) {}

  @Get()
  @Public()
  @ApiOperation({
    operationId: 'getHealth',
    summary: 'Health check: 200 when the database answers, 503 when not.',
  })
  @ApiResponse({ status: 200, type: HealthDto, description: 'The service and its database are up.' })
  @ApiResponse({ status: 503, type: HealthDto, description: 'A dependency is down; `checks` says which.' })
  async getHealth(@Res({ passthrough: true }) reply: FastifyReply): Promise<HealthDto> {
    let details: Record<string, DependencyCheckDto>;
    let ok: boolean;
    try {
      const result = await this.health.check([() => this.database.check()]);
      details = result.details as Record<string, DependencyCheckDto>;
      ok = true;
    } catch (error) {
      const response = (error as { getResponse?: () => unknown }).getResponse?.() as
        { details?: Record<string, DependencyCheckDto> } | undefined;
      details = response?.details ?? { database: { status: 'down', message: 'unreachable' } };
      ok = false;
    }
    if (!ok) void reply.status(HttpStatus.SERVICE_UNAVAILABLE);
    return {
      status: ok ? 'ok' : 'error',
      checks: { database: details.database },
      version: SERVICE_VERSION,
      uptimeSeconds: Math.floor((Date.now() - startedAt) / 1000),
    };
  }
}
