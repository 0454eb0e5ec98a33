import type { Logger as NestLogger } from '@nestjs/common';
import { Logger } from 'graphile-worker';

/**
 * graphile-worker's log lines, through the service's logger. Its `info` lines (a worker started, a job completed)
 * come with every job, so they are debug here.
 */
export function graphileLogger(logger: NestLogger): Logger {
  return new Logger((scope) => (level, message) => {
    const line = scope.taskIdentifier ? `${message} (${scope.taskIdentifier})` : message;
    // LogLevel is an ambient const enum, which isolated modules cannot reference; its values are these strings.
    const severity: string = level;
    if (severity === 'error') logger.error(line);
    else if (severity === 'warning') logger.warn(line);
    else logger.debug(line);
  });
}
