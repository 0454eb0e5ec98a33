import { Module } from '@nestjs/common';
import { PlanReads } from './plan-reads.service.js';
import { PlanUsage } from './plan-usage.js';
import { PlansController } from './plans.controller.js';
import { PlansRepository } from './plans.repository.js';
import { PlansService } from './plans.service.js';

/**
 * The plans operators sell. Exports what other rooms use on purpose: `PlansService.find` (a plan's terms and
 * features), `PlanReads.find` (the same from the plan cache, for a request the access guard admitted),
 * `PlansService.hold` (the same, locked FOR SHARE in a subscription's transaction) and `PlanUsage` (where
 * subscriptions register whether a plan has subscribers).
 */
@Module({
  controllers: [PlansController],
  providers: [PlansService, PlanReads, PlansRepository, PlanUsage],
  exports: [PlansService, PlanReads, PlanUsage],
})
export class PlansModule {}
