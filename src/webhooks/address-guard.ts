import dns from 'node:dns';
import type net from 'node:net';
import { parseIPv4, parseIPv6 } from './ip-address.ts';

/**
 * What an address is, for deciding where a webhook may go: `public`, `loopback` (127.0.0.0/8 and
 * ::1, which only test-mode deliveries may reach, and only when the operator allows it), or
 * `private` (every other address that is not on the public internet).
 */
export type AddressKind = 'public' | 'loopback' | 'private';

interface Range {
  bytes: Uint8Array;
  bits: number;
}

function range(cidr: string): Range {
  const [address, bits] = cidr.split('/') as [string, string];
  return { bytes: (parseIPv4(address) ?? parseIPv6(address))!, bits: Number(bits) };
}

function inRange(bytes: Uint8Array, { bytes: prefix, bits }: Range): boolean {
  if (bytes.length !== prefix.length) return false;
  for (let bit = 0; bit < bits; bit += 8) {
    const mask = bits - bit >= 8 ? 0xff : (0xff << (8 - (bits - bit))) & 0xff;
    if ((bytes[bit / 8]! & mask) !== (prefix[bit / 8]! & mask)) return false;
  }
  return true;
}

const IPV4_LOOPBACK = range('127.0.0.0/8');
/** This network, private, shared (CGNAT), link-local (cloud metadata), protocol, documentation, 6to4 relay, benchmarking, multicast, reserved. */
const IPV4_NOT_PUBLIC = [
  '0.0.0.0/8',
  '10.0.0.0/8',
  '100.64.0.0/10',
  '169.254.0.0/16',
  '172.16.0.0/12',
  '192.0.0.0/24',
  '192.0.2.0/24',
  '192.88.99.0/24',
  '192.168.0.0/16',
  '198.18.0.0/15',
  '198.51.100.0/24',
  '203.0.113.0/24',
  '224.0.0.0/4',
  '240.0.0.0/4',
].map(range);

const IPV6_LOOPBACK = range('::1/128');
/**
 * IPv6 addresses that carry an IPv4 address a packet may end up at, judged by that address:
 * IPv4-mapped (::ffff:127.0.0.1 however written), NAT64's well-known prefix (a public IPv4 in it
 * is a legitimate DNS64 answer) and 6to4.
 */
const IPV6_CARRYING_IPV4: Array<{ range: Range; at: number }> = [
  { range: range('::ffff:0:0/96'), at: 12 },
  { range: range('64:ff9b::/96'), at: 12 },
  { range: range('2002::/16'), at: 2 },
];
/** Only 2000::/3 is allocated for global unicast; inside it, Teredo (a tunnel to any IPv4) and the documentation ranges are not destinations either. */
const IPV6_GLOBAL_UNICAST = range('2000::/3');
const IPV6_NOT_PUBLIC_IN_GLOBAL = ['2001::/32', '2001:db8::/32', '3fff::/20'].map(range);

/** What `address` is, or null when it is not an IP address. */
export function addressKind(address: string): AddressKind | null {
  const ipv4 = parseIPv4(address);
  if (ipv4) return ipv4Kind(ipv4);
  const ipv6 = parseIPv6(address);
  return ipv6 ? ipv6Kind(ipv6) : null;
}

function ipv4Kind(bytes: Uint8Array): AddressKind {
  if (inRange(bytes, IPV4_LOOPBACK)) return 'loopback';
  return IPV4_NOT_PUBLIC.some((r) => inRange(bytes, r)) ? 'private' : 'public';
}

/**
 * Everything outside 2000::/3 is refused, which covers the unspecified address, IPv4-compatible
 * ::/96, NAT64 local-use 64:ff9b:1::/48, discard-only 100::/64, unique local fc00::/7,
 * link-local fe80::/10, site-local fec0::/10 and multicast ff00::/8, and whatever IANA has not
 * allocated yet.
 */
function ipv6Kind(bytes: Uint8Array): AddressKind {
  if (inRange(bytes, IPV6_LOOPBACK)) return 'loopback';
  const carrier = IPV6_CARRYING_IPV4.find(({ range: r }) => inRange(bytes, r));
  if (carrier) return ipv4Kind(bytes.subarray(carrier.at, carrier.at + 4));
  if (!inRange(bytes, IPV6_GLOBAL_UNICAST)) return 'private';
  return IPV6_NOT_PUBLIC_IN_GLOBAL.some((r) => inRange(bytes, r)) ? 'private' : 'public';
}

/** Where a webhook may go: public addresses always; loopback only when allowed (test mode, WEBHOOK_ALLOW_LOOPBACK). */
export interface DestinationPolicy {
  allowLoopback: boolean;
}

/** Why a webhook may not go to `address`, or null when it may. */
export function refusalReason(address: string, policy: DestinationPolicy): string | null {
  const kind = addressKind(address);
  if (kind === null) return `${address} is not an IP address`;
  if (kind === 'public' || (kind === 'loopback' && policy.allowLoopback)) return null;
  return `${address} is not a public address`;
}

export class RefusedDestination extends Error {}

/**
 * A `lookup` for http.request that resolves as usual and then refuses the name if any address it
 * has is refused, so the check applies to the address actually connected to (a name that
 * resolves to 127.0.0.1 is refused too, and a second resolution cannot differ from the checked one).
 */
export function guardedLookup(policy: DestinationPolicy): net.LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, '', 0);
      const list = addresses as dns.LookupAddress[];
      const refused = list.map((entry) => refusalReason(entry.address, policy)).find((reason) => reason !== null);
      if (refused || list.length === 0)
        return callback(
          new RefusedDestination(`Refused: ${hostname} resolves to a refused address (${refused ?? 'none'})`),
          '',
          0,
        );
      if (options.all) return callback(null, list);
      callback(null, list[0]!.address, list[0]!.family);
    });
  };
}
