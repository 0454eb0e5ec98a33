import { connect, createServer, type Server, type Socket } from 'node:net';

const HOST = '127.0.0.1';

export interface TcpProxy {
  /** The loopback port the proxy listens on; it stays the same across `cut()` and `restore()`. */
  readonly port: number;
  /** The given connection URL with its host and port replaced by the proxy's. */
  url(databaseUrl: string): string;
  /** Drops every open connection and refuses new ones: to its clients, the target is down. */
  cut(): Promise<void>;
  /** Accepts connections again, on the same port: the target is back. */
  restore(): Promise<void>;
  /**
   * The next bytes the target sends (an HTTP answer, say) never arrive: that client connection is dropped instead,
   * after the target acted on the request. Resolves once it happened.
   */
  dropNextAnswer(): Promise<void>;
  close(): Promise<void>;
}

function listen(server: Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, HOST, () => {
      server.off('error', reject);
      const address = server.address();
      resolve(typeof address === 'object' && address ? address.port : port);
    });
  });
}

/**
 * A loopback TCP proxy to a server the tests share (PostgreSQL): cutting it makes the server look down to one app
 * without stopping it for everyone else.
 */
export async function startTcpProxy(targetHost: string, targetPort: number): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  let dropNext: (() => void) | undefined;
  const track = (socket: Socket): void => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  };

  const server = createServer((client) => {
    const upstream = connect(targetPort, targetHost);
    track(client);
    track(upstream);
    // One side failing or closing takes the other down with it, as a direct connection would.
    for (const [from, to] of [
      [client, upstream],
      [upstream, client],
    ]) {
      from.on('error', () => to.destroy());
      from.on('close', () => to.destroy());
    }
    client.pipe(upstream);
    upstream.on('data', (chunk: Buffer) => {
      if (dropNext) {
        const dropped = dropNext;
        dropNext = undefined;
        client.destroy();
        return dropped();
      }
      if (!client.write(chunk)) {
        upstream.pause();
        client.once('drain', () => upstream.resume());
      }
    });
    upstream.on('end', () => client.end());
  });
  const port = await listen(server, 0);

  const cut = async (): Promise<void> => {
    if (!server.listening) return;
    // close() only stops accepting; its callback waits for the open connections, which are destroyed right after.
    const closed = new Promise<void>((resolve, reject) =>
      server.close((error) => (error ? reject(error) : resolve())),
    );
    for (const socket of sockets) socket.destroy();
    await closed;
  };

  return {
    port,
    url(databaseUrl) {
      const url = new URL(databaseUrl);
      url.hostname = HOST;
      url.port = String(port);
      return url.toString();
    },
    cut,
    async restore() {
      if (!server.listening) await listen(server, port);
    },
    dropNextAnswer() {
      return new Promise<void>((resolve) => {
        dropNext = resolve;
      });
    },
    close: cut,
  };
}
