import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import type { ResolvedAddress } from './webhook-url.guard.js';

/** Request options that make a socket connect only to addresses the URL guard has just approved. */
export interface PinnedRequestOptions {
  lookup: LookupFunction;
  /** Part of the pool name, so a kept-alive socket is reused only while its address is still approved. */
  checkedAddresses: string;
}

/**
 * A DNS lookup that answers only with the given addresses. Handed to the socket, it means nothing is
 * resolved between check and connect, so DNS rebinding has no window.
 */
function pinnedLookup(addresses: readonly ResolvedAddress[]): LookupFunction {
  return (hostname, options, callback) => {
    const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : options.family;
    const usable = family === 4 || family === 6 ? addresses.filter((a) => a.family === family) : addresses;
    process.nextTick(() => {
      if (usable.length === 0) {
        const error = Object.assign(new Error(`No checked IPv${family} address for ${hostname}`), {
          code: 'ENOTFOUND',
        });
        callback(error, '');
      } else if (options.all) {
        callback(
          null,
          usable.map(({ address, family: f }) => ({ address, family: f })),
        );
      } else {
        callback(null, usable[0].address, usable[0].family);
      }
    });
  };
}

export function pinnedRequestOptions(addresses: readonly ResolvedAddress[]): PinnedRequestOptions {
  return {
    lookup: pinnedLookup(addresses),
    checkedAddresses: addresses
      .map(({ address }) => address)
      .sort()
      .join(','),
  };
}

function poolName(base: string, options: object | undefined): string {
  const checked = (options as Partial<PinnedRequestOptions> | undefined)?.checkedAddresses;
  return checked === undefined ? base : `${base}:${checked}`;
}

// Node pools keep-alive sockets by host and port only; without the addresses in the name, a socket opened
// to an address approved earlier would carry a request whose check approved different ones.
export class PinnedHttpAgent extends http.Agent {
  override getName(options?: http.ClientRequestArgs): string {
    return poolName(super.getName(options), options);
  }
}

export class PinnedHttpsAgent extends https.Agent {
  override getName(options?: https.RequestOptions): string {
    return poolName(super.getName(options), options);
  }
}
