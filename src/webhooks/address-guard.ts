import dns from 'node:dns';
import net from 'node:net';

/** Where a live webhook may never go: loopback, private, link-local, shared and reserved ranges. */
const NOT_PUBLIC = new net.BlockList();
for (const [prefix, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  NOT_PUBLIC.addSubnet(prefix, bits, 'ipv4');
}
for (const [prefix, bits] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96],
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  NOT_PUBLIC.addSubnet(prefix, bits, 'ipv6');
}

/** Why `address` is not a public one, or null when it is. IPv4-mapped IPv6 is judged as IPv4. */
export function privateAddressReason(address: string): string | null {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  const ip = mapped ?? address;
  const family = net.isIPv4(ip) ? 'ipv4' : net.isIPv6(ip) ? 'ipv6' : null;
  if (!family) return `${address} is not an IP address`;
  return NOT_PUBLIC.check(ip, family) ? `${ip} is not a public address` : null;
}

export class RefusedDestination extends Error {}

/**
 * A `lookup` for http.request that resolves as usual and then refuses any non-public address,
 * so the check applies to the address actually connected to (a name that resolves to
 * 127.0.0.1 is refused too, and a second resolution cannot differ from the checked one).
 */
export const publicOnlyLookup: net.LookupFunction = (hostname, options, callback) => {
  dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, '', 0);
    const list = addresses as dns.LookupAddress[];
    const refused = list.map((entry) => privateAddressReason(entry.address)).find((reason) => reason !== null);
    if (refused || list.length === 0) return callback(new RefusedDestination(`Refused: ${hostname} resolves to a non-public address (${refused ?? 'none'})`), '', 0);
    if (options.all) return callback(null, list);
    callback(null, list[0]!.address, list[0]!.family);
  });
};
