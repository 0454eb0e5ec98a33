import { applyDecorators } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayUnique,
  IsArray,
  IsBoolean,
  IsInt,
  IsOptional,
  IsString,
  Length,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateBy,
  ValidateIf,
} from 'class-validator';
import { IsPlainText } from '../../common/validation/plain-text.js';
import { MAX_PLAN_PRICE, MAX_PLAN_SECONDS, PLAN_FEATURE, PLAN_ID, type Plan } from '../plan.js';

/** The most features any plan may list, whatever PLAN_FEATURES_MAX says (its own maximum). */
const FEATURES_HARD_MAX = 1000;
const DIGITS = /^(0|[1-9][0-9]{0,77})$/;

/** A token amount as a decimal string of an integer from 0 to 2^256 − 1 (JSON numbers lose precision past 2^53). */
function IsTokenAmount(): PropertyDecorator {
  return ValidateBy({
    name: 'isTokenAmount',
    validator: {
      validate: (value) => typeof value === 'string' && DIGITS.test(value) && BigInt(value) <= MAX_PLAN_PRICE,
      defaultMessage: (args) =>
        `${args?.property ?? 'value'} must be a decimal string of a whole number of the token's smallest unit, from 0 to 2^256 - 1`,
    },
  });
}

/** Present means valid: null is refused, unlike `@IsOptional` (which lets null through). */
const Given = () => ValidateIf((_object, value) => value !== undefined);

const FEATURE_DOC =
  'Entitlement keys the plan includes, each 1–64 of `a-z 0-9 . _ -`, no duplicates, at most PLAN_FEATURES_MAX ' +
  '(default 50; more is 400 `plan_limit_reached`).';
const PRICE_DOC =
  "Price of one period in the payment token's smallest unit (`GET /subscriptions/plan` names the token and its " +
  'decimals), as a decimal string of a whole number: `"5000000"` is 5 USDC (6 decimals). Plans share the ' +
  'configured token and receiver.';
const TRIAL_DOC =
  "Length of the free trial a wallet's first subscription to the plan gets, in seconds; null: no trial.";

const EXAMPLE = {
  id: 'pro',
  name: 'Pro',
  description: 'Everything in Basic, and CSV export.',
  periodSeconds: 2_592_000,
  pricePerPeriod: '10000000',
  features: ['api.calls', 'export.csv'],
  trialSeconds: 604_800,
};

/** `features` of both bodies: optional, never null, each a feature key, no duplicates. */
const FeatureList = (doc: { description: string; default?: string[] }): PropertyDecorator =>
  applyDecorators(
    ApiProperty({
      required: false,
      type: [String],
      maxItems: FEATURES_HARD_MAX,
      uniqueItems: true,
      items: { type: 'string', pattern: PLAN_FEATURE.source },
      example: EXAMPLE.features,
      ...doc,
    }),
    Given(),
    IsArray(),
    ArrayMaxSize(FEATURES_HARD_MAX),
    ArrayUnique(),
    IsString({ each: true }),
    Matches(PLAN_FEATURE, { each: true, message: 'each feature must be 1-64 of a-z, 0-9, ., _ and -' }),
  );

/** `trialSeconds` of both bodies: optional, null for no trial. */
const TrialSeconds = (doc: { description: string; default?: null }): PropertyDecorator =>
  applyDecorators(
    ApiProperty({
      required: false,
      type: 'integer',
      nullable: true,
      minimum: 1,
      maximum: MAX_PLAN_SECONDS,
      example: EXAMPLE.trialSeconds,
      ...doc,
    }),
    IsOptional(),
    IsInt(),
    Min(1),
    Max(MAX_PLAN_SECONDS),
  );

export class CreatePlanDto {
  @ApiProperty({
    pattern: PLAN_ID.source,
    example: EXAMPLE.id,
    description:
      "The plan's stable id (slug): 1–32 of lowercase letters, digits and hyphens, starting with a letter or digit. `default` is taken by the plan the settings define. Never changes.",
  })
  @IsString()
  @Matches(PLAN_ID, { message: 'id must be 1-32 of a-z, 0-9 and -, starting with a letter or digit' })
  id: string;

  @ApiProperty({ minLength: 1, maxLength: 64, example: EXAMPLE.name, description: 'What customers read.' })
  @IsString()
  @Length(1, 64)
  @IsPlainText()
  name: string;

  @ApiProperty({ required: false, maxLength: 500, example: EXAMPLE.description, default: '' })
  @Given()
  @IsString()
  @MaxLength(500)
  @IsPlainText()
  description?: string;

  @ApiProperty({
    type: 'integer',
    minimum: 1,
    maximum: MAX_PLAN_SECONDS,
    example: EXAMPLE.periodSeconds,
    description: 'Length of one paid period, in seconds.',
  })
  @IsInt()
  @Min(1)
  @Max(MAX_PLAN_SECONDS)
  periodSeconds: number;

  @ApiProperty({
    type: String,
    pattern: DIGITS.source,
    example: EXAMPLE.pricePerPeriod,
    description: PRICE_DOC,
  })
  @IsTokenAmount()
  pricePerPeriod: string;

  @FeatureList({ default: [], description: FEATURE_DOC })
  features?: string[];

  @TrialSeconds({ default: null, description: TRIAL_DOC })
  trialSeconds?: number | null;
}

/** What an operator may change; omitted fields keep their values. */
export class UpdatePlanDto {
  @ApiProperty({ required: false, minLength: 1, maxLength: 64, example: EXAMPLE.name })
  @Given()
  @IsString()
  @Length(1, 64)
  @IsPlainText()
  name?: string;

  @ApiProperty({ required: false, maxLength: 500, example: EXAMPLE.description })
  @Given()
  @IsString()
  @MaxLength(500)
  @IsPlainText()
  description?: string;

  @FeatureList({ description: `${FEATURE_DOC} Replaces the list.` })
  features?: string[];

  @TrialSeconds({ description: `${TRIAL_DOC} Applies to subscriptions that start after the change.` })
  trialSeconds?: number | null;

  @ApiProperty({
    required: false,
    type: 'integer',
    minimum: 1,
    maximum: MAX_PLAN_SECONDS,
    example: EXAMPLE.periodSeconds,
    description: 'Only while the plan has no subscribers (else 409 `plan_in_use`).',
  })
  @Given()
  @IsInt()
  @Min(1)
  @Max(MAX_PLAN_SECONDS)
  periodSeconds?: number;

  @ApiProperty({
    required: false,
    type: String,
    pattern: DIGITS.source,
    example: EXAMPLE.pricePerPeriod,
    description: `${PRICE_DOC} Only while the plan has no subscribers (else 409 \`plan_in_use\`).`,
  })
  @Given()
  @IsTokenAmount()
  pricePerPeriod?: string;
}

/** `?archived=true` and `?archived=false`; anything else is refused. */
const booleanWord = ({ value }: { value: unknown }): unknown =>
  value === 'true' ? true : value === 'false' ? false : value;

export class ListPlansQueryDto {
  @ApiProperty({
    required: false,
    default: false,
    description: 'true: archived plans too (they keep their subscribers but cannot be newly chosen).',
  })
  @IsOptional()
  @Transform(booleanWord, { toClassOnly: true })
  @IsBoolean()
  archived?: boolean;
}

/** A plan as the API shows it. */
export class PlanDetailsDto {
  @ApiProperty({ example: EXAMPLE.id, description: 'Stable id; `default` is the plan the settings define.' })
  id: string;

  @ApiProperty({ example: EXAMPLE.name })
  name: string;

  @ApiProperty({ example: EXAMPLE.description })
  description: string;

  @ApiProperty({
    type: 'integer',
    example: EXAMPLE.periodSeconds,
    description: 'Length of one period, in seconds.',
  })
  periodSeconds: number;

  @ApiProperty({
    type: String,
    pattern: DIGITS.source,
    example: EXAMPLE.pricePerPeriod,
    description: PRICE_DOC,
  })
  pricePerPeriod: string;

  @ApiProperty({
    type: [String],
    example: EXAMPLE.features,
    description: 'Entitlement keys the plan includes.',
  })
  features: string[];

  @ApiProperty({ type: 'integer', nullable: true, example: EXAMPLE.trialSeconds, description: TRIAL_DOC })
  trialSeconds: number | null;

  @ApiProperty({ example: true, description: 'Whether new subscribers may choose it (not archived).' })
  offered: boolean;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, example: null })
  archivedAt: string | null;

  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    example: '2026-11-27T09:00:00.000Z',
    description: 'Null for `default`, which the settings define.',
  })
  createdAt: string | null;

  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    example: '2026-11-27T09:00:00.000Z',
    description: 'Null for `default`.',
  })
  updatedAt: string | null;
}

export function planDetailsDto(plan: Plan): PlanDetailsDto {
  return {
    id: plan.id,
    name: plan.name,
    description: plan.description,
    periodSeconds: plan.periodSeconds,
    pricePerPeriod: plan.pricePerPeriod.toString(),
    features: [...plan.features],
    trialSeconds: plan.trialSeconds,
    offered: plan.archivedAt === null,
    archivedAt: plan.archivedAt?.toISOString() ?? null,
    createdAt: plan.createdAt?.toISOString() ?? null,
    updatedAt: plan.updatedAt?.toISOString() ?? null,
  };
}
