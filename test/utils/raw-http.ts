import { connect, type Socket } from 'node:net';

/** One HTTP/1.1 answer as read off the wire. */
export interface RawAnswer {
  status: number;
  /** Lower-case names. */
  headers: Record<string, string>;
  body: string;
  /** The body parsed as JSON, or undefined. */
  json: any;
}

/**
 * A client socket that writes bytes exactly as given (stalls, drips, pipelines, missing headers: what fetch would
 * never send) and parses the answers the server writes back, in order.
 */
export class RawConnection {
  private received = Buffer.alloc(0);
  private readonly answers: RawAnswer[] = [];
  private waiters: Array<() => void> = [];
  /** True once the server closed the connection (or it was reset). */
  closed = false;

  private constructor(private readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.received = Buffer.concat([this.received, chunk]);
      this.parse();
      this.wake();
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      this.closed = true;
      this.wake();
    });
  }

  static open(url: string): Promise<RawConnection> {
    const { hostname, port } = new URL(url);
    return new Promise((resolve, reject) => {
      const socket = connect(Number(port), hostname, () => resolve(new RawConnection(socket)));
      socket.once('error', reject);
    });
  }

  write(bytes: string | Buffer): void {
    if (!this.socket.destroyed) this.socket.write(bytes);
  }

  /** Resolves with the next answer, or undefined when the connection closes first. */
  async nextAnswer(): Promise<RawAnswer | undefined> {
    while (this.answers.length === 0 && !this.closed) await this.change();
    return this.answers.shift();
  }

  /** Resolves once the server has closed the connection. */
  async untilClosed(): Promise<void> {
    while (!this.closed) await this.change();
  }

  destroy(): void {
    this.socket.destroy();
  }

  private change(): Promise<void> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }

  private parse(): void {
    for (;;) {
      const end = this.received.indexOf('\r\n\r\n');
      if (end < 0) return;
      const [statusLine, ...lines] = this.received.subarray(0, end).toString('latin1').split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      const length = Number(headers['content-length'] ?? 0);
      if (this.received.length < end + 4 + length) return;
      const body = this.received.subarray(end + 4, end + 4 + length).toString('utf8');
      this.received = this.received.subarray(end + 4 + length);
      let json: unknown;
      try {
        json = body ? JSON.parse(body) : undefined;
      } catch {
        json = undefined;
      }
      this.answers.push({
        status: Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine!)?.[1] ?? 0),
        headers,
        body,
        json,
      });
    }
  }
}
