import { Global, Module } from '@nestjs/common';
import { Metrics } from './metrics.service.js';

/** The registry every module reports into; each registers its own metrics (the pool's: DatabaseModule). */
@Global()
@Module({ providers: [Metrics], exports: [Metrics] })
export class MetricsModule {}
