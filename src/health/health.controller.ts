import { Controller, Get, HttpStatus, Res } from '@nestjs/common';
import { ApiOperation, ApiResponse } from '@nestjs/swagger';
import { ApiTag } from '../common/http/api-tag.js';
import { HealthCheckService } from '@nestjs/terminus';
import type { FastifyReply } from 'fastify';
import { Public } from '../auth/decorators/public.decorator.js';
import { SERVICE_VERSION } from '../common/version.js';
import { DatabaseHealthIndicator } from './database.health.js';
import { HealthNotes } from './health-notes.js';
import { HealthDto, LivenessDto, type DependencyCheckDto, type KeeperCheckDto } from './health.dto.js';

const startedAt = Date.now();
/** Load balancers poll /health many times a second; one check (one database ping) per second answers them all. */
const CHECK_REUSE_MS = 1000;

interface CheckOutcome {
  ok: boolean;
  details: Record<string, DependencyCheckDto>;
  keeper?: KeeperCheckDto;
}

@ApiTag('health', {
  description: 'Liveness and readiness for load balancers and orchestrators.',
  place: 'last',
})
@Controller('health')
export class HealthController {
  private last: { at: number; outcome: Promise<CheckOutcome> } | undefined;

  constructor(
    private readonly health: HealthCheckService,
    private readonly database: DatabaseHealthIndicator,
    private readonly notes: HealthNotes,
  ) {}

  @Get()
  @Public({ rateLimited: false })
  @ApiOperation({
    operationId: 'getHealth',
    summary: 'Health check: 200 when the database answers, 503 when not.',
    description:
      'Public. The database check is shared by the requests of one second, so polling it often costs little.',
  })
  @ApiResponse({ status: 200, type: HealthDto, description: 'The service and its database are up.' })
  @ApiResponse({ status: 503, type: HealthDto, description: 'A dependency is down; `checks` says which.' })
  async getHealth(@Res({ passthrough: true }) reply: FastifyReply): Promise<HealthDto> {
    const now = Date.now();
    if (!this.last || now - this.last.at >= CHECK_REUSE_MS) this.last = { at: now, outcome: this.check() };
    const { ok, details, keeper } = await this.last.outcome;
    if (!ok) void reply.status(HttpStatus.SERVICE_UNAVAILABLE);
    return {
      status: ok ? 'ok' : 'error',
      checks: { database: details.database, ...(keeper && { keeper }) },
      version: SERVICE_VERSION,
      uptimeSeconds: Math.floor((Date.now() - startedAt) / 1000),
    };
  }

  @Get('live')
  @Public({ rateLimited: false })
  @ApiOperation({
    operationId: 'getLiveness',
    summary: 'Liveness: 200 while the process serves requests (its event loop turns); checks no dependency.',
    description:
      "For an orchestrator's liveness probe: a process whose event loop is stuck never answers, and should be " +
      'restarted. A database outage does not fail it (restarting would not help); see /health/ready.',
  })
  @ApiResponse({ status: 200, type: LivenessDto, description: 'The process is serving.' })
  getLiveness(): LivenessDto {
    return { status: 'ok' };
  }

  @Get('ready')
  @Public({ rateLimited: false })
  @ApiOperation({
    operationId: 'getReadiness',
    summary:
      'Readiness: 200 when this instance can serve, 503 while its database does not answer or it is stopping.',
    description:
      "For an orchestrator's readiness probe or a load balancer. The listener opens only after the migrations " +
      'have run, so any answer means they have; once shutdown starts every request, this one included, gets 503.',
  })
  @ApiResponse({ status: 200, type: HealthDto, description: 'Ready: the database answers.' })
  @ApiResponse({ status: 503, type: HealthDto, description: 'Not ready; `checks` says why.' })
  getReadiness(@Res({ passthrough: true }) reply: FastifyReply): Promise<HealthDto> {
    return this.getHealth(reply);
  }

  /** Concurrent and back-to-back requests within a second share one check, so the answer is never older than that. */
  private async check(): Promise<CheckOutcome> {
    const [outcome, keeper] = await Promise.all([this.checkDependencies(), this.notes.keeper()]);
    return keeper ? { ...outcome, keeper } : outcome;
  }

  private async checkDependencies(): Promise<CheckOutcome> {
    try {
      const result = await this.health.check([() => this.database.check()]);
      return { ok: true, details: result.details as Record<string, DependencyCheckDto> };
    } catch (error) {
      const response = (error as { getResponse?: () => unknown }).getResponse?.() as
        { details?: Record<string, DependencyCheckDto> } | undefined;
      return {
        ok: false,
        details: response?.details ?? { database: { status: 'down', message: 'unreachable' } },
      };
    }
  }
}
