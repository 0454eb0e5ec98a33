import { BlockList, isIPv4, isIPv6 } from 'node:net';

/** Whether a webhook may be delivered to an address; `reason` names the forbidden class. */
export interface AddressClassification {
  allowed: boolean;
  reason?: string;
}

type Family = 'ipv4' | 'ipv6';

interface AddressRule {
  reason: string;
  list: BlockList;
}

function rule(reason: string, family: Family, ranges: Array<[string, number]>): AddressRule {
  const list = new BlockList();
  for (const [network, prefix] of ranges) list.addSubnet(network, prefix, family);
  return { reason, list };
}

// Checked in order, first match wins: the cloud-metadata endpoints sit inside wider classes (link-local,
// CGNAT, ULA) and get the more telling reason.
const IPV4_RULES: AddressRule[] = [
  rule('metadata', 'ipv4', [
    ['169.254.169.254', 32], // AWS, Azure, GCP, OpenStack, DigitalOcean and most others
    ['169.254.170.2', 32], // AWS ECS task credentials
    ['169.254.170.23', 32], // AWS EKS Pod Identity
    ['100.100.100.200', 32], // Alibaba Cloud
    ['192.0.0.192', 32], // Oracle Cloud (legacy)
    ['168.63.129.16', 32], // Azure WireServer: publicly numbered, yet reachable only from inside Azure
  ]),
  rule('unspecified', 'ipv4', [['0.0.0.0', 8]]),
  rule('loopback', 'ipv4', [['127.0.0.0', 8]]),
  rule('private', 'ipv4', [
    ['10.0.0.0', 8],
    ['172.16.0.0', 12],
    ['192.168.0.0', 16],
  ]),
  rule('link_local', 'ipv4', [['169.254.0.0', 16]]),
  rule('cgnat', 'ipv4', [['100.64.0.0', 10]]),
  rule('documentation', 'ipv4', [
    ['192.0.2.0', 24],
    ['198.51.100.0', 24],
    ['203.0.113.0', 24],
  ]),
  rule('broadcast', 'ipv4', [['255.255.255.255', 32]]),
  rule('multicast', 'ipv4', [['224.0.0.0', 4]]),
  rule('reserved', 'ipv4', [
    ['192.0.0.0', 24], // IETF protocol assignments
    ['192.88.99.0', 24], // deprecated 6to4 relay anycast
    ['198.18.0.0', 15], // benchmarking
    ['240.0.0.0', 4], // future use
  ]),
];

const IPV6_RULES: AddressRule[] = [
  rule('metadata', 'ipv6', [
    ['fd00:ec2::254', 128], // AWS instance metadata
    ['fd00:ec2::23', 128], // AWS EKS Pod Identity
    ['fd20:ce::254', 128], // GCP metadata
  ]),
  rule('link_local', 'ipv6', [['fe80::', 10]]),
  rule('site_local', 'ipv6', [['fec0::', 10]]),
  rule('unique_local', 'ipv6', [['fc00::', 7]]),
  rule('multicast', 'ipv6', [['ff00::', 8]]),
  rule('documentation', 'ipv6', [
    ['2001:db8::', 32],
    ['3fff::', 20],
  ]),
  // IETF protocol assignments: Teredo, benchmarking, ORCHID; none of them is a webhook endpoint.
  rule('reserved', 'ipv6', [['2001::', 23]]),
];

// Everything outside 2000::/3 is unassigned or special-purpose, so IPv6 is allow-listed rather than
// deny-listed: a range IANA hands out tomorrow must not silently become reachable.
const IPV6_GLOBAL_UNICAST = rule('global_unicast', 'ipv6', [['2000::', 3]]);

const ALLOWED: AddressClassification = { allowed: true };

function forbidden(reason: string): AddressClassification {
  return { allowed: false, reason };
}

function firstMatch(rules: AddressRule[], address: string, family: Family): string | undefined {
  return rules.find((candidate) => candidate.list.check(address, family))?.reason;
}

function classifyIPv4(address: string): AddressClassification {
  const reason = firstMatch(IPV4_RULES, address, 'ipv4');
  return reason === undefined ? ALLOWED : forbidden(reason);
}

/** The eight 16-bit groups of an address that `isIPv6` accepted (no zone id). */
function hextets(address: string): number[] {
  let text = address;
  const lastColon = text.lastIndexOf(':');
  const tail = text.slice(lastColon + 1);
  if (tail.includes('.')) {
    const [a, b, c, d] = tail.split('.').map(Number);
    text = `${text.slice(0, lastColon + 1)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const parse = (part: string): number[] => (part === '' ? [] : part.split(':').map((h) => parseInt(h, 16)));
  const [head, rest] = text.split('::');
  if (rest === undefined) return parse(head);
  const left = parse(head);
  const right = parse(rest);
  return [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
}

function ipv4From(high: number, low: number): string {
  return `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;
}

/**
 * IPv6 forms that carry an IPv4 address, and where. `passThrough` marks forms that really reach that IPv4
 * host (mapped sockets, NAT64, 6to4), which are judged by it; the others are obsolete and never legitimate.
 */
const EMBEDDINGS: Array<{
  label: string;
  matches: (h: number[]) => boolean;
  ipv4: (h: number[]) => string;
  passThrough: boolean;
}> = [
  {
    label: 'ipv4_mapped',
    matches: (h) => h.slice(0, 5).every((x) => x === 0) && h[5] === 0xffff,
    ipv4: (h) => ipv4From(h[6], h[7]),
    passThrough: true,
  },
  {
    label: 'ipv4_translated',
    matches: (h) => h.slice(0, 4).every((x) => x === 0) && h[4] === 0xffff && h[5] === 0,
    ipv4: (h) => ipv4From(h[6], h[7]),
    passThrough: false,
  },
  {
    label: 'ipv4_compatible',
    matches: (h) => h.slice(0, 6).every((x) => x === 0),
    ipv4: (h) => ipv4From(h[6], h[7]),
    passThrough: false,
  },
  {
    label: 'nat64',
    matches: (h) => h[0] === 0x64 && h[1] === 0xff9b && h.slice(2, 6).every((x) => x === 0),
    ipv4: (h) => ipv4From(h[6], h[7]),
    passThrough: true,
  },
  {
    label: '6to4',
    matches: (h) => h[0] === 0x2002,
    ipv4: (h) => ipv4From(h[1], h[2]),
    passThrough: true,
  },
];

function classifyIPv6(address: string): AddressClassification {
  const h = hextets(address);
  if (h.every((x) => x === 0)) return forbidden('unspecified');
  if (h.slice(0, 7).every((x) => x === 0) && h[7] === 1) return forbidden('loopback');

  const embedding = EMBEDDINGS.find((candidate) => candidate.matches(h));
  if (embedding) {
    const inner = classifyIPv4(embedding.ipv4(h));
    if (!inner.allowed) return forbidden(`${embedding.label}:${inner.reason}`);
    return embedding.passThrough ? ALLOWED : forbidden('reserved');
  }

  const expanded = h.map((x) => x.toString(16)).join(':');
  const reason = firstMatch(IPV6_RULES, expanded, 'ipv6');
  if (reason !== undefined) return forbidden(reason);
  return IPV6_GLOBAL_UNICAST.list.check(expanded, 'ipv6') ? ALLOWED : forbidden('reserved');
}

/**
 * Classifies one IP address in its standard textual form (dotted-quad IPv4; IPv6 with or without
 * compression, embedded dotted quad or zone id). Anything else, including unusual IPv4 spellings such as
 * `0x7f.1`, is `invalid` and therefore refused: callers pass the WHATWG-normalised URL host or a resolver
 * answer, both of which are always in standard form.
 */
export function classifyAddress(ip: string): AddressClassification {
  if (isIPv4(ip)) return classifyIPv4(ip);
  const zoneStart = ip.indexOf('%');
  const address = zoneStart === -1 ? ip : ip.slice(0, zoneStart);
  if (isIPv6(address)) return classifyIPv6(address);
  return forbidden('invalid');
}
