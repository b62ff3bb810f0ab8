import type { FastifyInstance } from 'fastify';
import { ApiError, fieldLabel } from '../shared/errors.ts';

const BODYLESS = new Set(['GET', 'HEAD', 'DELETE', 'OPTIONS']);

/**
 * One tolerant parser for every content type: real clients send JSON as text/plain, with no
 * type at all, or as an empty body; a GET may even carry `[]`. GET bodies are ignored, an empty
 * body is `{}`, and anything that is not a JSON object is the contract's 400. Only the checkout
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
    // JSON can carry U+0000 only escaped, so the text tells cheaply whether to look for it.
    const nul = body.includes('\\u0000') ? fieldWithNul(parsed) : null;
    if (nul !== null) return done(ApiError.field(nul, `The ${fieldLabel(nul)} must not contain null characters.`), undefined);
    request.rawJson = body;
    done(null, parsed);
  });
}

/**
 * The first field (dotted path) whose text holds U+0000, or null. No field has a use for it, and
 * PostgreSQL cannot store it in text: refused here, alike on both databases, before anything
 * tries. Walks with a stack, not recursion: a 64 KiB body can nest tens of thousands of levels.
 */
function fieldWithNul(value: object): string | null {
  const pending: Array<[unknown, string]> = [[value, '']];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [item, path] = next;
    if (typeof item === 'string' && item.includes('\u0000')) return path;
    if (item !== null && typeof item === 'object') {
      for (const [key, child] of Object.entries(item)) pending.push([child, path ? `${path}.${key}` : key]);
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
