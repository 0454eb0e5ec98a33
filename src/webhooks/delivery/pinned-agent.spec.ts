import type { LookupAddress } from 'node:dns';
import { PinnedHttpAgent, PinnedHttpsAgent, pinnedRequestOptions } from './pinned-agent.js';
import type { ResolvedAddress } from './webhook-url.guard.js';

const checked: ResolvedAddress[] = [
  { address: '93.184.215.14', family: 4 },
  { address: '2606:4700::1111', family: 6 },
];

function lookup(
  family: number | undefined,
  all: boolean,
): Promise<{ error: NodeJS.ErrnoException | null; address: string | LookupAddress[]; family?: number }> {
  const { lookup: pinned } = pinnedRequestOptions(checked);
  return new Promise((resolve) => {
    pinned('hooks.example.test', { family, all }, (error, address, resolvedFamily) =>
      resolve({ error, address, family: resolvedFamily }),
    );
  });
}

describe('pinnedRequestOptions', () => {
  it('answers every lookup with the checked addresses only', async () => {
    await expect(lookup(undefined, true)).resolves.toEqual({
      error: null,
      address: checked,
      family: undefined,
    });
    await expect(lookup(6, true)).resolves.toEqual({ error: null, address: [checked[1]], family: undefined });
    await expect(lookup(0, false)).resolves.toEqual({ error: null, address: '93.184.215.14', family: 4 });
    await expect(lookup(6, false)).resolves.toEqual({ error: null, address: '2606:4700::1111', family: 6 });
  });

  it('fails a lookup for a family that was not checked instead of resolving it', async () => {
    const { lookup: pinned } = pinnedRequestOptions([checked[0]]);
    const error = await new Promise<NodeJS.ErrnoException | null>((resolve) =>
      pinned('hooks.example.test', { family: 6 }, (failure) => resolve(failure)),
    );
    expect(error?.code).toBe('ENOTFOUND');
  });

  it('names the checked addresses in an order-independent way', () => {
    expect(pinnedRequestOptions(checked).checkedAddresses).toBe(
      pinnedRequestOptions([...checked].reverse()).checkedAddresses,
    );
  });
});

describe('PinnedHttpAgent / PinnedHttpsAgent', () => {
  it('pool sockets per host, port and checked addresses', () => {
    const http = new PinnedHttpAgent();
    const https = new PinnedHttpsAgent();
    try {
      for (const agent of [http, https]) {
        const a = agent.getName({
          host: 'hooks.example.test',
          port: 443,
          ...pinnedRequestOptions([checked[0]]),
        });
        const b = agent.getName({
          host: 'hooks.example.test',
          port: 443,
          ...pinnedRequestOptions([checked[1]]),
        });
        const again = agent.getName({
          host: 'hooks.example.test',
          port: 443,
          ...pinnedRequestOptions([checked[0]]),
        });
        expect(a).not.toBe(b);
        expect(a).toBe(again);
        expect(a).toContain('93.184.215.14');
      }
    } finally {
      http.destroy();
      https.destroy();
    }
  });
});
