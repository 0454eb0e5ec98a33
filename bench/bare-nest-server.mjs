// A reference, not a baseline: the smallest NestJS application on the Fastify adapter (one controller answering the
// raw server's constant, no hooks, guards, pipes or logging). What the framework alone costs on this machine, so
// the table shows how much of the gap to raw node:http is the service's own work.
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

const app = await NestFactory.create(BareModule, new FastifyAdapter(), { logger: false });
await app.listen(Number(process.env.PORT), '127.0.0.1');
process.send?.('ready');
