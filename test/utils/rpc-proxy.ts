import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Hex, keccak256 } from 'viem';

/** How the proxy answers: pass through, drop the connection, never answer, or answer a JSON-RPC error. */
export type RpcFault = 'none' | 'refuse' | 'hang' | 'error';

export interface RpcProxy {
  readonly url: string;
  /** Applies to every request from now on, until changed. */
  fault(fault: RpcFault): void;
  /**
   * While on, `eth_sendRawTransaction` answers the transaction's hash without passing it on: a transaction the
   * node accepted and then lost (or one stuck in its mempool), never mined.
   */
  dropSends(on: boolean): void;
  /** The next `eth_sendRawTransaction` goes through, and every request after it is refused: a crash after sending. */
  refuseAfterNextSend(): void;
  /** Methods seen, in order (for tests that must know what was asked). */
  readonly methods: string[];
  close(): Promise<void>;
}

/** A JSON-RPC proxy in front of the test chain that can go down, error or hang, on loopback. */
export async function startRpcProxy(target: string): Promise<RpcProxy> {
  let fault: RpcFault = 'none';
  let dropping = false;
  let refuseAfterSend = false;
  const hanging = new Set<ServerResponse>();
  const methods: string[] = [];

  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const call = JSON.parse(body) as { id?: unknown; method?: string; params?: unknown[] };
      methods.push(call.method ?? '');
      if (fault === 'refuse') return request.socket.destroy();
      if (fault === 'hang') return void hanging.add(response);
      const answer = (payload: unknown): void => {
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(payload));
      };
      if (fault === 'error')
        return answer({ jsonrpc: '2.0', id: call.id, error: { code: -32603, message: 'upstream failure' } });
      if (call.method === 'eth_sendRawTransaction' && dropping)
        return answer({ jsonrpc: '2.0', id: call.id, result: keccak256(call.params![0] as Hex) });
      if (call.method === 'eth_sendRawTransaction' && refuseAfterSend) {
        refuseAfterSend = false;
        fault = 'refuse';
      }
      void fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
        .then(async (upstream) => {
          response
            .writeHead(upstream.status, { 'content-type': 'application/json' })
            .end(await upstream.text());
        })
        .catch(() => request.socket.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    methods,
    fault(next) {
      fault = next;
      if (next !== 'hang') {
        for (const response of hanging) response.socket?.destroy();
        hanging.clear();
      }
    },
    dropSends(on) {
      dropping = on;
    },
    refuseAfterNextSend() {
      refuseAfterSend = true;
    },
    async close() {
      for (const response of hanging) response.socket?.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
