import { jest } from '@jest/globals';
import { custom } from 'viem';
import { tracedTransport } from './traced-transport.js';
import { installTracing, tracing, type SpanAttributes, type Tracing } from './tracing.js';

const RPC_URL = 'https://rpc.example.com/v2/secret-api-key';

function recordingTracing(spans: Array<{ name: string; attributes: SpanAttributes }>): Tracing {
  return {
    ...tracing(),
    enabled: true,
    inClientSpan: (name, attributes, work) => {
      spans.push({ name, attributes });
      return work({ setAttributes: () => undefined, fail: () => undefined });
    },
  };
}

describe('tracedTransport', () => {
  const untraced = tracing();
  afterEach(() => installTracing(untraced));

  it('is the transport itself while tracing is off', () => {
    const transport = custom({ request: () => Promise.resolve('0x1') });
    expect(tracedTransport(transport, RPC_URL)).toBe(transport);
  });

  it('makes a span per JSON-RPC call, naming the method and the host, never the path', async () => {
    const spans: Array<{ name: string; attributes: SpanAttributes }> = [];
    installTracing(recordingTracing(spans));
    const request = jest.fn(({ method }: { method: string }) => Promise.resolve(`${method} answered`));
    const transport = tracedTransport(custom({ request }), RPC_URL)({ retryCount: 0 });

    await expect(transport.request({ method: 'eth_blockNumber' })).resolves.toBe('eth_blockNumber answered');
    expect(request).toHaveBeenCalledTimes(1);
    expect(spans).toEqual([
      {
        name: 'eth_blockNumber',
        attributes: {
          'rpc.system': 'jsonrpc',
          'rpc.method': 'eth_blockNumber',
          'server.address': 'rpc.example.com',
        },
      },
    ]);
  });
});
