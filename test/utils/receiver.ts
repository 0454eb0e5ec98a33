import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

export interface Answer {
  status: number;
  headers?: Record<string, string>;
  body?: string;
}

/** A local webhook receiver that records every request and answers as told (200 by default). */
export class Receiver {
  readonly received: Received[] = [];
  url = '';
  private readonly server: Server;

  private constructor(answer: (index: number) => Answer) {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const index = this.received.length;
        this.received.push({
          headers: request.headers,
          body: Buffer.concat(chunks).toString('utf8'),
          at: Date.now(),
        });
        const { status, headers, body } = answer(index);
        response.writeHead(status, headers);
        response.end(body ?? '');
      });
    });
  }

  static async start(answer: (index: number) => Answer = () => ({ status: 200 })): Promise<Receiver> {
    const receiver = new Receiver(answer);
    await new Promise<void>((resolve) => receiver.server.listen(0, '127.0.0.1', resolve));
    receiver.url = `http://127.0.0.1:${(receiver.server.address() as AddressInfo).port}/hook`;
    return receiver;
  }

  /** Resolves once at least `count` requests arrived. */
  async waitFor(count: number, timeoutMs = 10_000): Promise<Received[]> {
    await until(() => this.received.length >= count, timeoutMs, `${count} webhook request(s) at ${this.url}`);
    return this.received;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

export async function until(
  condition: () => boolean | Promise<boolean>,
  timeoutMs: number,
  what: string,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
