import { Global, Module } from '@nestjs/common';
import { Database } from './database.service.js';
import { NotificationBus } from './notification-bus.service.js';

@Global()
@Module({ providers: [Database, NotificationBus], exports: [Database, NotificationBus] })
export class DatabaseModule {}
