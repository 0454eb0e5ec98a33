import type { LoggerService } from '@nestjs/common';
import { pino, type Logger } from 'pino';

/**
 * One pino logger for the process: Fastify uses it for request logs, Nest for its own messages. Credentials never
 * reach a log line: the paths that could carry them are redacted here, and nothing logs request bodies.
 */
export function createLogger(level: string): Logger {
  return pino({
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
  });
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
