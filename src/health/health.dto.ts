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

/** The keeper's gas (automatic renewal): a low balance is named here, and does not make the instance unready. */
export class KeeperCheckDto {
  @ApiProperty({
    enum: ['up', 'low', 'unknown'],
    example: 'low',
    description: '`low`: below `KEEPER_MIN_BALANCE_WEI`, refill it; `unknown`: the chain did not answer.',
  })
  status: 'up' | 'low' | 'unknown';

  @ApiProperty({
    example: '0x52908400098527886E0F7030069857D2E4169EE7',
    description: "The keeper key's address.",
  })
  address: string;

  @ApiProperty({
    required: false,
    example: '4000000000000000',
    description: 'Its gas balance in wei (a decimal string), when the chain answered.',
  })
  balanceWei?: string;

  @ApiProperty({ example: '10000000000000000', description: '`KEEPER_MIN_BALANCE_WEI`.' })
  minBalanceWei: string;
}

export class HealthChecksDto {
  @ApiProperty({ type: DependencyCheckDto })
  database: DependencyCheckDto;

  @ApiProperty({
    type: KeeperCheckDto,
    required: false,
    description:
      'Present when automatic renewal charges on chain (`AUTO_RENEW_CHARGER_ADDRESS` and a keeper key).',
  })
  keeper?: KeeperCheckDto;
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
