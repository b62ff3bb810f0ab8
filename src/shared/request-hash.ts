import { hash } from 'node:crypto';

/**
 * A digest of what a create request asked for, with object keys in a stable order, so that a
 * retry of the same request can be told from a different request with the same reference.
 * Stored with each record: the text it digests must never change form.
 */
export function requestHash(request: unknown): string {
  return hash('sha256', stableJson(request) ?? '', 'base64url');
}

/** JSON with object keys sorted (by UTF-16 code units) and undefined members left out. */
function stableJson(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return JSON.stringify(value);
  const parts: string[] = [];
  if (Array.isArray(value)) {
    for (const item of value) parts.push(stableJson(item) ?? '');
    return `[${parts.join(',')}]`;
  }
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record).sort()) {
    const member = record[key];
    if (member !== undefined) parts.push(`${quotedKey(key)}:${stableJson(member)}`);
  }
  return `{${parts.join(',')}}`;
}

/** Requests repeat the same few keys: each is quoted once (bounded, since `meta` is the merchant's). */
const quotedKeys = new Map<string, string>();
const MAX_QUOTED_KEYS = 1000;

function quotedKey(key: string): string {
  let quoted = quotedKeys.get(key);
  if (quoted === undefined) {
    quoted = JSON.stringify(key);
    if (quotedKeys.size < MAX_QUOTED_KEYS) quotedKeys.set(key, quoted);
  }
  return quoted;
}
