import { Global, Module } from '@nestjs/common';
import { EventOutbox } from './event-outbox.service.js';

@Global()
@Module({ providers: [EventOutbox], exports: [EventOutbox] })
export class EventsModule {}
