/**
 * IP addresses as bytes, so that ranges can be checked on what an address means rather than on
 * how it was written (`::ffff:7f00:1` and `::ffff:127.0.0.1` are one address).
 */

/** `a.b.c.d` in plain decimal (no leading zeros, which some parsers read as octal) as 4 bytes, or null. */
export function parseIPv4(text: string): Uint8Array | null {
  const parts = text.split('.');
  if (parts.length !== 4) return null;
  const bytes = new Uint8Array(4);
  for (const [index, part] of parts.entries()) {
    if (!/^(0|[1-9][0-9]{0,2})$/.test(part) || Number(part) > 255) return null;
    bytes[index] = Number(part);
  }
  return bytes;
}

/**
 * An IPv6 address as 16 bytes, or null: eight groups of 1–4 hex digits, one `::` standing for one
 * or more zero groups, an IPv4 address as the last 32 bits (`::ffff:127.0.0.1`), and a zone
 * (`fe80::1%eth0`, as sockets report link-local peers) ignored.
 */
export function parseIPv6(text: string): Uint8Array | null {
  const halves = text.replace(/%[^%]+$/, '').split('::');
  if (halves.length > 2) return null;
  const compressed = halves.length === 2;
  const head = groupsOf(halves[0]!, !compressed);
  const tail = compressed ? groupsOf(halves[1]!, true) : [];
  if (!head || !tail) return null;
  const zeros = 8 - head.length - tail.length;
  if (compressed ? zeros < 1 : zeros !== 0) return null;
  const bytes = new Uint8Array(16);
  [...head, ...new Array<number>(zeros).fill(0), ...tail].forEach((group, index) => {
    bytes[index * 2] = group >> 8;
    bytes[index * 2 + 1] = group & 0xff;
  });
  return bytes;
}

/** The 16-bit groups of one side of `::`; an IPv4 address may end the side that ends the address. */
function groupsOf(side: string, endsAddress: boolean): number[] | null {
  if (side === '') return [];
  const parts = side.split(':');
  const groups: number[] = [];
  for (const [index, part] of parts.entries()) {
    const ipv4 = endsAddress && index === parts.length - 1 ? parseIPv4(part) : null;
    if (ipv4) groups.push((ipv4[0]! << 8) | ipv4[1]!, (ipv4[2]! << 8) | ipv4[3]!);
    else if (/^[0-9a-fA-F]{1,4}$/.test(part)) groups.push(parseInt(part, 16));
    else return null;
  }
  return groups;
}
