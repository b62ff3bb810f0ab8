import type { FastifyRequest } from 'fastify';

/** Longer than any address: a header of a misconfigured proxy cannot make bucket keys of any size. */
const MAX_ADDRESS_LENGTH = 64;

/**
 * Who a request's client is, for limits by address. With `header` set (the one a trusted proxy
 * writes, e.g. x-forwarded-for) it is that header's last entry: the address the proxy itself saw,
 * whatever the client wrote before it. Otherwise, or when the header is missing, the address of
 * the connection.
 */
export function clientAddress(request: FastifyRequest, header: string | null): string {
  const forwarded = header === null ? undefined : request.headers[header];
  const address = typeof forwarded === 'string' ? forwarded.slice(forwarded.lastIndexOf(',') + 1).trim() : '';
  return addressGroup(address || (request.socket.remoteAddress ?? ''));
}

/**
 * The group an address is counted in: an IPv4 address on its own (written plainly when it came
 * as IPv4-mapped IPv6), an IPv6 address by its /64, which one subscriber is commonly given whole
 * and could otherwise walk through for a fresh bucket with every request.
 */
export function addressGroup(address: string): string {
  if (!address.includes(':')) return address.slice(0, MAX_ADDRESS_LENGTH);
  const lower = address.toLowerCase();
  if (lower.startsWith('::ffff:') && lower.includes('.')) return lower.slice('::ffff:'.length, MAX_ADDRESS_LENGTH);
  const groups = ipv6Groups(lower);
  return groups ? `${groups.slice(0, 4).join(':')}::/64` : lower.slice(0, MAX_ADDRESS_LENGTH);
}

/** The eight groups of an IPv6 address (without leading zeros), or null if it is not one. */
function ipv6Groups(address: string): string[] | null {
  const halves = address.replace(/%.*$/, '').split('::');
  if (halves.length > 2) return null;
  const written = halves.map((half) => (half === '' ? [] : half.split(':')));
  // A trailing dotted IPv4 part stands for two groups.
  const count = written.flat().reduce((sum, group) => sum + (group.includes('.') ? 2 : 1), 0);
  const groups =
    halves.length === 2
      ? [...written[0]!, ...Array<string>(Math.max(0, 8 - count)).fill('0'), ...written[1]!]
      : written[0]!;
  if (!groups.slice(0, 4).every((group) => /^[0-9a-f]{1,4}$/.test(group))) return null;
  return groups.map((group) => group.replace(/^0+(?=.)/, ''));
}
