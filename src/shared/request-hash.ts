import { createHash } from 'node:crypto';

/**
 * A digest of what a create request asked for, with object keys in a stable order, so that a
 * retry of the same request can be told from a different request with the same reference.
 */
export function requestHash(request: unknown): string {
  return createHash('sha256').update(stableJson(request)).digest('base64url');
}

function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}
