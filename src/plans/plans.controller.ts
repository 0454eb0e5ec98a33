import { Body, Controller, Get, HttpCode, HttpStatus, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam } from '@nestjs/swagger';
import { ApiTag } from '../common/http/api-tag.js';
import { Authenticated } from '../auth/decorators/authenticated.decorator.js';
import { Public } from '../auth/decorators/public.decorator.js';
import { ROUTE_SCOPES } from '../auth/scopes.js';
import { ApiErrors } from '../common/http/api-errors.decorator.js';
import {
  CreatePlanDto,
  ListPlansQueryDto,
  PlanDetailsDto,
  planDetailsDto,
  UpdatePlanDto,
} from './dto/plan.dto.js';
import { PlansService } from './plans.service.js';

const DEFAULT_PLAN =
  'The plan `default` is always listed first: SUBSCRIPTION_PERIOD_SECONDS at PAYMENT_PRICE_PER_PERIOD under ' +
  '`erc20` (at `"0"` under `free` and `operator`), no features, no trial. It is defined by the settings, not ' +
  'stored, and cannot be edited or archived through the API (409 `plan_read_only`).';

const OPERATORS =
  'Operators only: an operator (OPERATOR_ADDRESSES) signed in, or an API key with FULL that an operator created ' +
  '(anyone else: 403 `operator_required`).';

const PLAN_ID_PARAM = { name: 'id', example: 'pro', description: 'The plan id (`default`, or a slug).' };

@ApiTag('plans', {
  description: 'What the service sells: the plans offered (public), and their management by operators.',
})
@Controller('plans')
export class PlansController {
  constructor(private readonly plans: PlansService) {}

  @Get()
  @Public()
  @ApiOperation({
    operationId: 'listPlans',
    summary: 'The plans offered to new subscribers (addition, public).',
    description:
      `What a pricing page shows: every plan that may be chosen, \`default\` first, then the others oldest first; ` +
      `with \`archived=true\`, archived plans too. Prices are in the payment token's smallest unit, as decimal ` +
      `strings (\`GET /subscriptions/plan\` names the token and its decimals).\n\n${DEFAULT_PLAN}`,
  })
  @ApiOkResponse({ type: PlanDetailsDto, isArray: true, description: 'The plans.' })
  @ApiErrors({ 400: ['validation_failed'] })
  async listPlans(@Query() query: ListPlansQueryDto): Promise<PlanDetailsDto[]> {
    return (await this.plans.list(query.archived ?? false)).map(planDetailsDto);
  }

  @Get(':id')
  @Public()
  @ApiOperation({
    operationId: 'getPlan',
    summary: 'One plan, archived or not (addition, public).',
    description: `An archived plan is answered too (\`offered: false\`): its subscribers still renew on it.\n\n${DEFAULT_PLAN}`,
  })
  @ApiParam(PLAN_ID_PARAM)
  @ApiOkResponse({ type: PlanDetailsDto, description: 'The plan.' })
  @ApiErrors({ 404: ['plan_not_found'] })
  async getPlan(@Param('id') id: string): Promise<PlanDetailsDto> {
    return planDetailsDto(await this.plans.find(id));
  }

  @Post()
  @HttpCode(HttpStatus.OK)
  @Authenticated({ scopes: ROUTE_SCOPES.full, operator: true })
  @ApiOperation({
    operationId: 'createPlan',
    summary: 'Create a plan (addition, operators).',
    description:
      `${OPERATORS} The plan is offered at once. At most PLANS_MAX (default 100) plans may be offered at a time ` +
      'besides `default` (archived ones do not count): one more is 400 `plan_limit_reached`, as is a list of ' +
      'features longer than PLAN_FEATURES_MAX (default 50). An id already taken, archived plans and `default` ' +
      'included, is 409 `plan_exists`.',
  })
  @ApiOkResponse({ type: PlanDetailsDto, description: 'The plan created.' })
  @ApiErrors({
    400: ['validation_failed', 'plan_limit_reached'],
    403: ['operator_required'],
    409: ['plan_exists'],
  })
  async createPlan(@Body() body: CreatePlanDto): Promise<PlanDetailsDto> {
    return planDetailsDto(await this.plans.create(body));
  }

  @Patch(':id')
  @Authenticated({ scopes: ROUTE_SCOPES.full, operator: true })
  @ApiOperation({
    operationId: 'updatePlan',
    summary: 'Change a plan (addition, operators).',
    description:
      `${OPERATORS} Name, description, features and trial may change at any time, archived plans included (a ` +
      "change of features applies to the plan's subscribers as well). Price and period may change only while " +
      'no subscription is on the plan: otherwise 409 `plan_in_use` and nothing changes (a new price is a new ' +
      'plan; archive the old one). Sending the current price or period is not a change.',
  })
  @ApiParam(PLAN_ID_PARAM)
  @ApiOkResponse({ type: PlanDetailsDto, description: 'The plan as changed.' })
  @ApiErrors({
    400: ['validation_failed', 'plan_limit_reached'],
    403: ['operator_required'],
    404: ['plan_not_found'],
    409: ['plan_in_use', 'plan_read_only'],
  })
  async updatePlan(@Param('id') id: string, @Body() body: UpdatePlanDto): Promise<PlanDetailsDto> {
    return planDetailsDto(await this.plans.update(id, body));
  }

  @Post(':id/archive')
  @HttpCode(HttpStatus.OK)
  @Authenticated({ scopes: ROUTE_SCOPES.full, operator: true })
  @ApiOperation({
    operationId: 'archivePlan',
    summary: 'Stop offering a plan (addition, operators).',
    description:
      `${OPERATORS} The plan is no longer listed by \`GET /plans\` nor open to new subscribers; its ` +
      'subscribers keep it and renew at its price. Archiving is final (a plan to offer again is a new plan) and ' +
      'idempotent: archiving an archived plan answers it unchanged.',
  })
  @ApiParam(PLAN_ID_PARAM)
  @ApiOkResponse({ type: PlanDetailsDto, description: 'The archived plan.' })
  @ApiErrors({ 403: ['operator_required'], 404: ['plan_not_found'], 409: ['plan_read_only'] })
  async archivePlan(@Param('id') id: string): Promise<PlanDetailsDto> {
    return planDetailsDto(await this.plans.archive(id));
  }
}
