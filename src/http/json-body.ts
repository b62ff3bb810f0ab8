import type { FastifyInstance } from 'fastify';
import { ApiError, fieldLabel } from '../shared/errors.ts';

/** A url-encoded form as the parser gives it to a `config.form` route: each name's text, any of them missing. */
export type Form = Record<string, string | undefined>;

const BODYLESS = new Set(['GET', 'HEAD', 'DELETE', 'OPTIONS']);

/**
 * One tolerant parser for every content type: real clients send JSON as text/plain, with no
 * type at all, or as an empty body; a GET may even carry `[]`. GET bodies are ignored, an empty
 * body is `{}`, and anything that is not a JSON object is a 400 (docs/integrate/api-reference.md#errors). Only the checkout
 * page's own form routes read url-encoded forms.
 */
export function registerJsonBodyParser(app: FastifyInstance): void {
  app.decorateRequest('rawJson', null);
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (request, text, done) => {
    if (BODYLESS.has(request.method) || request.routeOptions.config.ignoreBody) return done(null, undefined);
    const body = String(text);
    if (request.routeOptions.config.form) return done(null, Object.fromEntries(new URLSearchParams(body)));
    if (body.trim() === '') return done(null, {});
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      return done(new ApiError('notJsonObject'), undefined);
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
      return done(new ApiError('notJsonObject'), undefined);
    }
    const refusal = mayNeedInspection(body) ? inspect(parsed) : null;
    if (refusal !== null) return done(refusal, undefined);
    request.rawJson = body;
    done(null, parsed);
  });
}

/** Deepest nesting of objects and arrays a body may have, the body itself being the first level. */
const MAX_JSON_DEPTH = 32;

/**
 * Whether the text may hold what `inspect` refuses. U+0000 can only be written escaped, and
 * `__proto__` only as itself or with escapes; every escape of an ASCII character starts `\u00`.
 * Nesting deeper than MAX_JSON_DEPTH takes more brackets than that. Most bodies have none of
 * these, and are not walked.
 */
function mayNeedInspection(text: string): boolean {
  return text.includes('\\u00') || text.includes('__proto__') || hasMoreBrackets(text, MAX_JSON_DEPTH);
}

function hasMoreBrackets(text: string, limit: number): boolean {
  let count = 0;
  for (let at = text.indexOf('{'); at !== -1; at = text.indexOf('{', at + 1)) if (++count > limit) return true;
  for (let at = text.indexOf('['); at !== -1; at = text.indexOf('[', at + 1)) if (++count > limit) return true;
  return false;
}

/**
 * What makes a parsed body unfit to go further, as the 400 to answer; null when nothing does.
 * - U+0000 in any text: no field has a use for it, and PostgreSQL cannot store it in text.
 * - A `__proto__` key, at any depth: JSON.parse keeps it as a plain key, but code that copies a
 *   body by assignment would set the copy's prototype instead, and read fields the merchant
 *   never sent as present.
 * - Nesting deeper than MAX_JSON_DEPTH: a 64 KiB body can nest tens of thousands of levels,
 *   which recursive code (hashing, serialising) cannot follow.
 * Refused here, alike on both databases, before anything tries. Walks with a stack, not
 * recursion, for that same depth.
 */
function inspect(body: object): ApiError | null {
  const pending: Array<[value: unknown, path: string, topField: string, depth: number]> = [[body, '', '', 1]];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [value, path, topField, depth] = next;
    if (typeof value === 'string') {
      if (value.includes('\u0000'))
        return ApiError.field(path, `The ${fieldLabel(path)} must not contain null characters.`);
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    if (depth > MAX_JSON_DEPTH)
      return ApiError.field(
        topField,
        `The ${fieldLabel(topField)} must not be nested more than ${MAX_JSON_DEPTH} levels deep.`,
      );
    const isArray = Array.isArray(value);
    for (const [key, child] of Object.entries(value)) {
      const childPath = path ? `${path}.${key}` : key;
      if (key === '__proto__' && !isArray) return ApiError.field(childPath, `The ${childPath} field is not allowed.`);
      pending.push([child, childPath, topField || key, depth + 1]);
    }
  }
  return null;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Set on routes that never read a body, so a malformed one cannot mask their answer. */
    ignoreBody?: boolean;
    /** Set on the hosted checkout's form posts: the body is `application/x-www-form-urlencoded`. */
    form?: boolean;
  }
  interface FastifyRequest {
    /** The exact JSON text of the body, for the few checks JSON.parse loses (how a number was written). */
    rawJson: string | null;
  }
}

/**
 * How a top-level number was written in the JSON text (`1000`, `1e3`, `1000.0`), which JSON.parse
 * forgets. Walks the text tracking depth and strings so a nested key of the same name is ignored.
 */
export function topLevelNumberLiteral(json: string, key: string): string | null {
  let depth = 0;
  let found: string | null = null;
  for (let i = 0; i < json.length; i++) {
    const ch = json[i];
    if (ch === '"') {
      const end = endOfString(json, i);
      if (depth === 1 && json.slice(i + 1, end) === key) {
        const literal = /^\s*:\s*(-?[0-9][0-9.eE+-]*)/.exec(json.slice(end + 1));
        if (literal) found = literal[1]!;
      }
      i = end;
    } else if (ch === '{' || ch === '[') depth++;
    else if (ch === '}' || ch === ']') depth--;
  }
  return found;
}

function endOfString(json: string, start: number): number {
  for (let i = start + 1; i < json.length; i++) {
    if (json[i] === '\\') i++;
    else if (json[i] === '"') return i;
  }
  return json.length;
}
