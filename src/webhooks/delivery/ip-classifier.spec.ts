import fc from 'fast-check';
import { classifyAddress } from './ip-classifier.js';

const refused: Array<[string, string]> = [
  // IPv4
  ['0.0.0.0', 'unspecified'],
  ['0.1.2.3', 'unspecified'],
  ['127.0.0.1', 'loopback'],
  ['127.255.255.254', 'loopback'],
  ['10.0.0.0', 'private'],
  ['10.0.0.5', 'private'],
  ['10.255.255.255', 'private'],
  ['172.16.0.1', 'private'],
  ['172.31.255.255', 'private'],
  ['192.168.0.1', 'private'],
  ['192.168.255.255', 'private'],
  ['169.254.0.1', 'link_local'],
  ['169.254.169.253', 'link_local'],
  ['169.254.169.254', 'metadata'],
  ['169.254.170.2', 'metadata'],
  ['169.254.170.23', 'metadata'],
  ['100.100.100.200', 'metadata'],
  ['192.0.0.192', 'metadata'],
  ['168.63.129.16', 'metadata'],
  ['100.64.0.1', 'cgnat'],
  ['100.127.255.255', 'cgnat'],
  ['192.0.2.1', 'documentation'],
  ['198.51.100.7', 'documentation'],
  ['203.0.113.200', 'documentation'],
  ['224.0.0.1', 'multicast'],
  ['239.255.255.250', 'multicast'],
  ['255.255.255.255', 'broadcast'],
  ['240.0.0.1', 'reserved'],
  ['255.255.255.254', 'reserved'],
  ['192.0.0.8', 'reserved'],
  ['192.88.99.1', 'reserved'],
  ['198.18.0.1', 'reserved'],
  ['198.19.255.255', 'reserved'],
  // IPv6
  ['::', 'unspecified'],
  ['0:0:0:0:0:0:0:0', 'unspecified'],
  ['::1', 'loopback'],
  ['0000:0000:0000:0000:0000:0000:0000:0001', 'loopback'],
  ['fe80::1', 'link_local'],
  ['fe80::1%eth0', 'link_local'],
  ['FE80::ABCD:1%25', 'link_local'],
  ['febf:ffff::1', 'link_local'],
  ['fec0::1', 'site_local'],
  ['fc00::1', 'unique_local'],
  ['fd12:3456:789a::1', 'unique_local'],
  ['fd00:ec2::254', 'metadata'],
  ['fd00:ec2:0:0:0:0:0:254', 'metadata'],
  ['fd00:ec2::23', 'metadata'],
  ['fd20:ce::254', 'metadata'],
  ['ff02::1', 'multicast'],
  ['ff05::1:3', 'multicast'],
  ['2001:db8::1', 'documentation'],
  ['3fff:fff::1', 'documentation'],
  ['2001::1', 'reserved'], // Teredo
  ['2001:2::1', 'reserved'], // benchmarking
  ['2001:20::1', 'reserved'], // ORCHIDv2
  ['100::1', 'reserved'], // discard-only
  ['64:ff9b:1::a', 'reserved'], // local-use NAT64
  ['5f00::1', 'reserved'], // SRv6 SIDs
  ['4000::1', 'reserved'], // unassigned, outside 2000::/3
  // IPv6 forms that carry an IPv4 address
  ['::ffff:10.0.0.1', 'ipv4_mapped:private'],
  ['::ffff:a00:1', 'ipv4_mapped:private'],
  ['0:0:0:0:0:ffff:7f00:1', 'ipv4_mapped:loopback'],
  ['::FFFF:127.0.0.1', 'ipv4_mapped:loopback'],
  ['::ffff:169.254.169.254', 'ipv4_mapped:metadata'],
  ['::ffff:0.0.0.0', 'ipv4_mapped:unspecified'],
  ['::ffff:100.64.0.1', 'ipv4_mapped:cgnat'],
  ['::127.0.0.1', 'ipv4_compatible:loopback'],
  ['::a00:1', 'ipv4_compatible:private'],
  ['::8.8.8.8', 'reserved'],
  ['::ffff:0:7f00:1', 'ipv4_translated:loopback'],
  ['::ffff:0:8.8.8.8', 'reserved'],
  ['64:ff9b::7f00:1', 'nat64:loopback'],
  ['64:ff9b::10.1.2.3', 'nat64:private'],
  ['64:ff9b::169.254.169.254', 'nat64:metadata'],
  ['2002:7f00:1::', '6to4:loopback'],
  ['2002:a9fe:a9fe::1', '6to4:metadata'],
  ['2002:c0a8:101::1', '6to4:private'],
  // not an address in standard form
  ['', 'invalid'],
  ['localhost', 'invalid'],
  ['example.com', 'invalid'],
  ['0x7f.1', 'invalid'],
  ['2130706433', 'invalid'],
  ['0177.0.0.1', 'invalid'],
  ['127.1', 'invalid'],
  ['010.0.0.1', 'invalid'],
  ['[::1]', 'invalid'],
  ['1.2.3.4%eth0', 'invalid'],
  ['::1::1', 'invalid'],
  ['1.2.3.4.5', 'invalid'],
  [' 8.8.8.8', 'invalid'],
];

const allowed = [
  '8.8.8.8',
  '1.1.1.1',
  '93.184.215.14',
  '172.15.255.255',
  '172.32.0.1',
  '100.63.255.255',
  '100.128.0.1',
  '169.253.255.255',
  '192.0.3.1',
  '198.17.255.255',
  '198.20.0.1',
  '223.255.255.255',
  '11.0.0.1',
  '2606:4700::1111',
  '2606:4700:4700::1111',
  '2001:4860:4860::8888',
  '2a00:1450:4001:80b::200e',
  '2001:200::1',
  '::ffff:8.8.8.8',
  '::ffff:808:808',
  '64:ff9b::8.8.8.8',
  '2002:808:808::1',
];

describe('classifyAddress', () => {
  it.each(refused)('refuses %s as %s', (ip, reason) => {
    expect(classifyAddress(ip)).toEqual({ allowed: false, reason });
  });

  it.each(allowed)('allows %s', (ip) => {
    expect(classifyAddress(ip)).toEqual({ allowed: true });
  });
});

const octet = fc.integer({ min: 0, max: 255 });
const hextet = fc.integer({ min: 0, max: 0xffff });
const hex = (value: number): string => value.toString(16);

describe('classifyAddress properties', () => {
  it('refuses every address in 10.0.0.0/8, also when IPv4-mapped', () => {
    fc.assert(
      fc.property(octet, octet, octet, (b, c, d) => {
        const ip = `10.${b}.${c}.${d}`;
        expect(classifyAddress(ip)).toEqual({ allowed: false, reason: 'private' });
        expect(classifyAddress(`::ffff:${ip}`)).toEqual({ allowed: false, reason: 'ipv4_mapped:private' });
        expect(classifyAddress(`::ffff:${hex(0x0a00 | b)}:${hex((c << 8) | d)}`)).toEqual({
          allowed: false,
          reason: 'ipv4_mapped:private',
        });
      }),
    );
  });

  it('refuses every address in fc00::/7', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0xfc00, max: 0xfdff }),
        fc.array(hextet, { minLength: 7, maxLength: 7 }),
        (first, rest) => {
          const result = classifyAddress([first, ...rest].map(hex).join(':'));
          expect(result.allowed).toBe(false);
          expect(['unique_local', 'metadata']).toContain(result.reason);
        },
      ),
    );
  });

  it('classifies an IPv6 address the same in full and in URL-normalised compressed form', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(hextet, fc.constant(0)), { minLength: 8, maxLength: 8 }), (groups) => {
        const full = groups.map(hex).join(':');
        const compressed = new URL(`http://[${full}]/`).hostname.slice(1, -1);
        expect(classifyAddress(compressed)).toEqual(classifyAddress(full));
      }),
    );
  });

  it('never throws and refuses anything that is not an address', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        const result = classifyAddress(text);
        expect(typeof result.allowed).toBe('boolean');
        if (!result.allowed) expect(typeof result.reason).toBe('string');
      }),
    );
  });
});
