import type { LoggerService } from '@nestjs/common';
import type { onResponseHookHandler } from 'fastify';
import { pino, type DestinationStream, type Logger, type LoggerOptions } from 'pino';
import { tracing } from '../../tracing/tracing.js';

/**
 * One pino logger for the process: Fastify uses it for request logs, Nest for its own messages. Credentials never
 * reach a log line: the paths that could carry them are redacted here, and nothing logs request bodies.
 *
 * With tracing on, a line written while a span is active carries its `traceId` and `spanId`; without, no mixin is
 * installed (pino calls one for every line).
 */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  const traces = tracing();
  const options: LoggerOptions = {
    ...(traces.enabled ? { mixin: () => traces.logFields() } : {}),
    level,
    base: { service: 'tollgate' },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: {
      paths: [
        'req.headers.authorization',
        'req.headers.cookie',
        'res.headers["set-cookie"]',
        '*.authorization',
        '*.cookie',
        '*.key',
        '*.secret',
        '*.signature',
      ],
      censor: '[redacted]',
    },
  };
  return pino(options, destination ?? standardOutput());
}

/**
 * Standard output written asynchronously: a line is queued and the queue written when the previous write is done,
 * so a busy instance writes many lines per system call instead of one blocking write per request (a request's log
 * line cost more than a bare NestJS route's whole answer). pino writes what is queued synchronously at exit, which
 * `process.exit` and a fatal error both pass through.
 */
function standardOutput(): DestinationStream {
  return pino.destination({ dest: 1, sync: false });
}

/** Routes Nest's own log calls (bootstrap, module init, uncaught errors) into pino as structured lines. */
export class PinoNestLogger implements LoggerService {
  constructor(private readonly logger: Logger) {}

  log(message: unknown, context?: string): void {
    this.write('info', message, context);
  }

  error(message: unknown, traceOrContext?: string, context?: string): void {
    const ctx = context ?? traceOrContext;
    const trace = context ? traceOrContext : undefined;
    this.logger.error({ context: ctx, trace }, String(message));
  }

  warn(message: unknown, context?: string): void {
    this.write('warn', message, context);
  }

  debug(message: unknown, context?: string): void {
    this.write('debug', message, context);
  }

  verbose(message: unknown, context?: string): void {
    this.write('trace', message, context);
  }

  fatal(message: unknown, context?: string): void {
    this.write('fatal', message, context);
  }

  private write(
    level: 'info' | 'warn' | 'debug' | 'trace' | 'fatal',
    message: unknown,
    context?: string,
  ): void {
    if (message !== null && typeof message === 'object') this.logger[level]({ context, ...message });
    else this.logger[level]({ context }, String(message));
  }
}

/**
 * Fastify's `onResponse` hook writing the one line per request. Its fields are fixed and carry no credential, so it
 * logs through a child with redaction off (wildcard paths that walk every object logged cost a large share of a
 * line's CPU: docs/decisions/2026-11-25-a-log-line-per-request.md).
 * The bench's reference server installs this same hook, to show what the line costs a bare route.
 */
export function requestLogHook(logger: Logger): onResponseHookHandler {
  const access = logger.child({}, { redact: [] });
  return (request, reply, done) => {
    access.info(
      {
        requestId: request.id,
        method: request.method,
        url: request.url,
        statusCode: reply.statusCode,
        durationMs: Math.round(reply.elapsedTime * 100) / 100,
      },
      'request completed',
    );
    done();
  };
}
