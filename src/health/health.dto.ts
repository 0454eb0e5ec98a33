import { ApiProperty } from '@nestjs/swagger';

export class DependencyCheckDto {
  @ApiProperty({ enum: ['up', 'down'], example: 'up' })
  status: 'up' | 'down';

  @ApiProperty({
    required: false,
    example: 0.42,
    description: 'Round-trip time of the check in milliseconds.',
  })
  latencyMs?: number;

  @ApiProperty({ required: false, example: 'unreachable', description: 'Why the dependency is down.' })
  message?: string;
}

export class HealthChecksDto {
  @ApiProperty({ type: DependencyCheckDto })
  database: DependencyCheckDto;
}

export class HealthDto {
  @ApiProperty({ enum: ['ok', 'error'], example: 'ok' })
  status: 'ok' | 'error';

  @ApiProperty({ type: HealthChecksDto })
  checks: HealthChecksDto;

  @ApiProperty({ example: '1.0.0', description: 'Version of the running service.' })
  version: string;

  @ApiProperty({ example: 3600, description: 'Seconds since this instance started.' })
  uptimeSeconds: number;
}

export class LivenessDto {
  @ApiProperty({ enum: ['ok'], example: 'ok' })
  status: 'ok';
}
