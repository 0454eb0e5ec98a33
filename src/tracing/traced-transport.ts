import type { Transport } from 'viem';
import { tracing } from './tracing.js';

/**
 * A viem transport whose every JSON-RPC call (`eth_call`, `eth_getTransactionReceipt`, …) is a client span when
 * tracing is on; the transport itself when it is off. Only the RPC host is recorded: provider URLs often carry an
 * API key in their path.
 */
export function tracedTransport<T extends Transport>(transport: T, rpcUrl: string): T {
  const traces = tracing();
  if (!traces.enabled) return transport;
  const host = new URL(rpcUrl).hostname;
  const traced = ((parameters) => {
    const inner = transport(parameters);
    return {
      ...inner,
      request: (args, options) =>
        traces.inClientSpan(
          args.method,
          { 'rpc.system': 'jsonrpc', 'rpc.method': args.method, 'server.address': host },
          () => inner.request(args, options),
        ),
    };
  }) as Transport;
  return traced as T;
}
