import { ApiProperty } from '@nestjs/swagger';

export class FieldProblemDto {
  @ApiProperty({ example: 'scopes[1]', description: 'Path of the offending field.' })
  field: string;

  @ApiProperty({ example: 'each value in scopes must be one of: READ_ONLY, SUBSCRIPTIONS_MANAGE, FULL' })
  message: string;
}

export class ErrorDetailsDto {
  @ApiProperty({ example: 'validation_failed', description: 'Stable, machine-readable error code.' })
  code: string;

  @ApiProperty({
    example: '9b2f0c1e-3f5a-4c7d-9e8b-1a2b3c4d5e6f',
    description:
      'The request id (the `x-request-id` header of the answer): quote it when reporting a problem.',
  })
  requestId: string;

  @ApiProperty({ type: [FieldProblemDto], required: false, description: 'Validation errors, one per field.' })
  fields?: FieldProblemDto[];

  @ApiProperty({
    required: false,
    example: 'WEBHOOK_ALLOW_HTTP',
    description:
      'Outside production only: the setting that would lift this refusal (`WEBHOOK_ALLOW_HTTP`, `WEBHOOK_ALLOW_PRIVATE`).',
  })
  setting?: string;
}

/** The interface's error object. */
export class ErrorResponseDto {
  @ApiProperty({ example: 'address must be a wallet address', description: 'Human-readable message.' })
  error: string;

  @ApiProperty({ type: ErrorDetailsDto })
  details: ErrorDetailsDto;
}
