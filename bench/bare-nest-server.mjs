// A reference, not a baseline: the smallest NestJS application on the Fastify adapter (one controller answering the
// raw server's constant, no hooks, guards, pipes or logging). What the framework alone costs on this machine, so
// the table shows how much of the gap to raw node:http is the service's own work. With REQUEST_LOG=1 it also writes
// the service's request log line (its own logger and hook, to standard output), which the service writes by default.
//
// With GUARD_KEY and GUARD_JWT_SECRET it also serves /key/status and /jwt/status behind @nestjs/passport's ordinary
// AuthGuard: a passport-custom strategy hashing the bearer key with SHA-256 and finding it in a Map, and a
// passport-jwt strategy verifying a session token from the header or the session cookie with the service's secret.
// Under /attempt/ the same routes run the same strategies as the service's access guard does, once through passport's
// strategy protocol (its attemptStrategy) instead of AuthGuard. Each answers a status-shaped constant: what an
// authenticated route of this stack costs, in each form, before its own work.
import 'reflect-metadata';
import { createHash, createSecretKey } from 'node:crypto';
import {
  Controller,
  Get,
  Inject,
  Injectable,
  Module,
  Query,
  UnauthorizedException,
  UseGuards,
} from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { AuthGuard, PassportModule, PassportStrategy } from '@nestjs/passport';
import { Strategy as CustomStrategy } from 'passport-custom';
import { ExtractJwt, Strategy as JwtStrategy } from 'passport-jwt';

const body = { status: 'ok', checks: { database: { status: 'up', latencyMs: 0.5 } } };

class HealthController {
  get() {
    return body;
  }
}
decorateMethod(HealthController, 'get', [Get()]);
Reflect.decorate([Controller('health')], HealthController);

const controllers = [HealthController];
const providers = [];
const imports = [];
const guarded = process.env.GUARD_KEY && process.env.GUARD_JWT_SECRET;
if (guarded) {
  const digest = (key) => createHash('sha256').update(key).digest('hex');
  const keys = new Map([[digest(process.env.GUARD_KEY), { scopes: ['READ_ONLY'] }]]);
  class KeyStrategy extends PassportStrategy(CustomStrategy, 'api-key') {
    async validate(request) {
      const header = request.headers.authorization;
      return header?.startsWith('Bearer ') ? (keys.get(digest(header.slice(7))) ?? null) : null;
    }
  }
  const { SESSION_COOKIE } = await import('../dist/src/auth/session-cookie.js');
  const sessionCookie = new RegExp(`(?:^|;\\s*)${SESSION_COOKIE}=([^;]+)`);
  const cookieToken = (request) => sessionCookie.exec(request.headers.cookie ?? '')?.[1] ?? null;
  class SessionStrategy extends PassportStrategy(JwtStrategy, 'jwt') {
    constructor() {
      super({
        jwtFromRequest: ExtractJwt.fromExtractors([ExtractJwt.fromAuthHeaderAsBearerToken(), cookieToken]),
        // A key object, as the service passes: given a string, jsonwebtoken first tries it as a PEM public key and
        // throws, which held this route to a tenth of its rate.
        secretOrKey: createSecretKey(Buffer.from(process.env.GUARD_JWT_SECRET)),
        algorithms: ['HS256'],
      });
    }
    validate(claims) {
      return claims;
    }
  }
  for (const strategy of [KeyStrategy, SessionStrategy]) Reflect.decorate([Injectable()], strategy);

  const statusOf = (address) => ({
    address,
    active: true,
    currentPeriodEnd: '2026-12-25T00:00:00.000Z',
    cancelAtPeriodEnd: false,
  });
  // One class per route: Nest keys a controller's routes by its class.
  const statusController = () =>
    class StatusController {
      status(address) {
        return statusOf(address);
      }
    };
  const { attemptStrategy } = await import('../dist/src/auth/guards/strategy-attempt.js');
  /** The service's form: the one strategy, run once by passport's protocol. */
  const attemptGuard = (Strategy) => {
    class AttemptGuard {
      constructor(strategy) {
        this.strategy = strategy;
      }
      async canActivate(context) {
        const request = context.switchToHttp().getRequest();
        const { user } = await attemptStrategy(this.strategy, request);
        if (!user) throw new UnauthorizedException();
        request.user = user;
        return true;
      }
    }
    Reflect.decorate([Injectable()], AttemptGuard);
    Inject(Strategy)(AttemptGuard, undefined, 0);
    return AttemptGuard;
  };
  for (const [path, guard] of [
    ['key', AuthGuard('api-key')],
    ['jwt', AuthGuard('jwt')],
    ['attempt/key', attemptGuard(KeyStrategy)],
    ['attempt/jwt', attemptGuard(SessionStrategy)],
  ]) {
    const controller = statusController();
    decorateMethod(controller, 'status', [Get('status'), UseGuards(guard)]);
    Reflect.decorate([(target, key) => Query('address')(target, key, 0)], controller.prototype, 'status');
    Reflect.decorate([Controller(path)], controller);
    controllers.push(controller);
  }
  providers.push(KeyStrategy, SessionStrategy);
  imports.push(PassportModule);
}

class BareModule {}
Reflect.decorate([Module({ imports, controllers, providers })], BareModule);

const adapter = new FastifyAdapter();
if (process.env.REQUEST_LOG === '1') {
  const { createLogger, requestLogHook } = await import('../dist/src/common/logging/logger.js');
  adapter.getInstance().addHook('onResponse', requestLogHook(createLogger('info')));
}
const app = await NestFactory.create(BareModule, adapter, { logger: false });
await app.listen(Number(process.env.PORT), '127.0.0.1');
process.send?.('ready');

function decorateMethod(target, name, decorators) {
  Reflect.decorate(
    decorators,
    target.prototype,
    name,
    Object.getOwnPropertyDescriptor(target.prototype, name),
  );
}
