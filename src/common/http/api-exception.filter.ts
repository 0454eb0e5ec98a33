import { type ArgumentsHost, Catch, type ExceptionFilter, HttpStatus } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Metrics } from '../../metrics/metrics.service.js';
import { toErrorResponse, withRequestId } from './error-response.js';

/**
 * The one place errors become responses. Expected errors answer with their status and code; anything else is
 * logged with the request id and answered with a bare 500, never a stack, SQL text or path. Every error object
 * carries the request id (`details.requestId`, also in the `x-request-id` header and the request's log lines), so a
 * caller's report leads straight to the log.
 */
@Catch()
export class ApiExceptionFilter implements ExceptionFilter {
  constructor(private readonly metrics: Metrics) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    const reply = http.getResponse<FastifyReply>();
    const { status, body, unexpected } = toErrorResponse(exception);
    if (unexpected) request.log.error({ err: exception }, 'unexpected error');
    if (status === HttpStatus.UNAUTHORIZED || status === HttpStatus.FORBIDDEN) {
      this.metrics.authFailures.inc({ status_code: status, code: body.details.code });
    }
    // Routes count their answers in their own hook (app.ts); a request that matched none has no route to do it.
    if (this.metrics.enabled && request.is404) {
      this.metrics.observeUnmatched(request.method, status, reply.elapsedTime / 1000);
    }
    if (reply.sent) return;
    void reply
      .status(status)
      .header('content-type', 'application/json; charset=utf-8')
      .send(withRequestId(body, request.id));
  }
}
