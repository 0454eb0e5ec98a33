import { Global, Module } from '@nestjs/common';
import { Database } from './database.service.js';
import { InvalidationLog } from './invalidation-log.service.js';

@Global()
@Module({ providers: [Database, InvalidationLog], exports: [Database, InvalidationLog] })
export class DatabaseModule {}
