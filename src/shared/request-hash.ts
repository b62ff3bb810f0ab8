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
  if (Array.isArray(value)) {
    let text = '[';
    for (let i = 0; i < value.length; i++) text += (i ? ',' : '') + (stableJson(value[i]) ?? '');
    return `${text}]`;
  }
  const record = value as Record<string, unknown>;
  let text = '{';
  for (const key of Object.keys(record).sort()) {
    if (record[key] === undefined) continue;
    text += `${text.length > 1 ? ',' : ''}${JSON.stringify(key)}:${stableJson(record[key])}`;
  }
  return `${text}}`;
}
