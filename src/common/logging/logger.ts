import type { LoggerService } from '@nestjs/common';
import { pino, type ChildLoggerOptions, type DestinationStream, type Logger, type LoggerOptions } from 'pino';

/**
 * One pino logger for the process: Fastify uses it for request logs, Nest for its own messages. Credentials never
 * reach a log line: the paths that could carry them are redacted here, and nothing logs request bodies.
 */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  const options: LoggerOptions = {
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
  return destination ? pino(options, destination) : pino(options);
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

type LogMethod = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';

/**
 * A request's logger, made a pino child only when a line is actually written at an enabled level. Fastify builds
 * one per request; most requests log nothing, and binding a child (its bindings serialised, redaction set up) cost
 * more than the rest of a cached read's logging put together.
 */
class RequestLogger {
  private made: Logger | undefined;

  constructor(
    private readonly parent: Logger,
    private readonly bindings: Record<string, unknown>,
    private readonly options: ChildLoggerOptions,
  ) {}

  get level(): string {
    return (this.made ?? this.parent).level;
  }

  set level(level: string) {
    this.logger.level = level;
  }

  fatal(...args: unknown[]): void {
    this.write('fatal', args);
  }

  error(...args: unknown[]): void {
    this.write('error', args);
  }

  warn(...args: unknown[]): void {
    this.write('warn', args);
  }

  info(...args: unknown[]): void {
    this.write('info', args);
  }

  debug(...args: unknown[]): void {
    this.write('debug', args);
  }

  trace(...args: unknown[]): void {
    this.write('trace', args);
  }

  silent(): void {}

  isLevelEnabled(level: string): boolean {
    return (this.made ?? this.parent).isLevelEnabled(level);
  }

  child(bindings: Record<string, unknown>, options?: ChildLoggerOptions): Logger {
    return this.logger.child(bindings, options);
  }

  private get logger(): Logger {
    return (this.made ??= this.parent.child(this.bindings, this.options));
  }

  private write(level: LogMethod, args: unknown[]): void {
    if (this.made === undefined && !this.parent.isLevelEnabled(level)) return;
    (this.logger[level] as (...line: unknown[]) => void)(...args);
  }
}

/** Fastify's `childLoggerFactory`: per-request loggers that cost nothing until they write. */
export function requestLoggerFactory(
  parent: Logger,
  bindings: Record<string, unknown>,
  options: ChildLoggerOptions,
): Logger {
  // A per-route level needs the real child at once: the parent's level would decide otherwise.
  if (options.level !== undefined) return parent.child(bindings, options);
  return new RequestLogger(parent, bindings, options) as unknown as Logger;
}
