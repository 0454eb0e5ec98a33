// A reference, not a baseline: the smallest NestJS application on the Fastify adapter (one controller answering the
// raw server's constant, no hooks, guards, pipes or logging). What the framework alone costs on this machine, so
// the table shows how much of the gap to raw node:http is the service's own work. With REQUEST_LOG=1 it also writes
// the service's request log line (its own logger and hook, to standard output), which the service writes by default.
import 'reflect-metadata';
import { Controller, Get, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';

const body = { status: 'ok', checks: { database: { status: 'up', latencyMs: 0.5 } } };

class HealthController {
  get() {
    return body;
  }
}
Reflect.decorate(
  [Get()],
  HealthController.prototype,
  'get',
  Object.getOwnPropertyDescriptor(HealthController.prototype, 'get'),
);
Reflect.decorate([Controller('health')], HealthController);
class BareModule {}
Reflect.decorate([Module({ controllers: [HealthController] })], BareModule);

const adapter = new FastifyAdapter();
if (process.env.REQUEST_LOG === '1') {
  const { createLogger, requestLogHook } = await import('../dist/src/common/logging/logger.js');
  adapter.getInstance().addHook('onResponse', requestLogHook(createLogger('info')));
}
const app = await NestFactory.create(BareModule, adapter, { logger: false });
await app.listen(Number(process.env.PORT), '127.0.0.1');
process.send?.('ready');
