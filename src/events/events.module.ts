import { Global, Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { EventOutbox } from './event-outbox.service.js';
import { EventRetentionSweeper } from './event-retention.sweeper.js';
import { EventsController } from './events.controller.js';
import { EventsRepository } from './events.repository.js';
import { EventsService } from './events.service.js';

/** The outbox every producer records into, the events API that reads it, and its retention purge. */
@Global()
@Module({
  imports: [DiscoveryModule],
  controllers: [EventsController],
  providers: [EventOutbox, EventsService, EventsRepository, EventRetentionSweeper],
  exports: [EventOutbox],
})
export class EventsModule {}
