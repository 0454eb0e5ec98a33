import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A span as the OTLP/HTTP JSON encoding carries it, reduced to what the tests read. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  /** OTLP's SpanKind: 1 internal, 2 server, 3 client. */
  kind: number;
  attributes: Record<string, string | number | boolean>;
  /** `service.name` of the resource that sent it. */
  service: string;
}

interface AnyValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
}
interface KeyValue {
  key: string;
  value: AnyValue;
}
interface ExportRequest {
  resourceSpans?: Array<{
    resource?: { attributes?: KeyValue[] };
    scopeSpans?: Array<{
      spans?: Array<{
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
        kind: number;
        attributes?: KeyValue[];
      }>;
    }>;
  }>;
}

function attributesOf(list: KeyValue[] = []): Record<string, string | number | boolean> {
  return Object.fromEntries(
    list.map(({ key, value }) => [
      key,
      value.stringValue ??
        (value.intValue !== undefined ? Number(value.intValue) : undefined) ??
        value.boolValue ??
        value.doubleValue ??
        '',
    ]),
  );
}

/**
 * A local OpenTelemetry collector stand-in: accepts OTLP/HTTP JSON exports on `POST /v1/traces` (what
 * @opentelemetry/exporter-trace-otlp-http sends) and keeps the spans.
 */
export class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];
  exports = 0;
  url = '';
  private readonly server: Server;

  private constructor() {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        if (request.method !== 'POST' || request.url !== '/v1/traces') {
          response.writeHead(404).end();
          return;
        }
        this.exports++;
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ExportRequest;
        for (const { resource, scopeSpans = [] } of body.resourceSpans ?? []) {
          const service = String(attributesOf(resource?.attributes)['service.name']);
          for (const { spans = [] } of scopeSpans) {
            for (const span of spans) {
              this.spans.push({
                traceId: span.traceId,
                spanId: span.spanId,
                parentSpanId: span.parentSpanId ?? '',
                name: span.name,
                kind: span.kind,
                attributes: attributesOf(span.attributes),
                service,
              });
            }
          }
        }
        response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
  }

  static async start(): Promise<OtlpReceiver> {
    const receiver = new OtlpReceiver();
    await new Promise<void>((resolve) => receiver.server.listen(0, '127.0.0.1', resolve));
    receiver.url = `http://127.0.0.1:${(receiver.server.address() as AddressInfo).port}`;
    return receiver;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
