import { timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { randomBase62 } from '../shared/ids.ts';
import { readCookie } from './cookies.ts';

const COOKIE = 'lipira_csrf';
const TOKEN = /^[0-9A-Za-z]{32}$/;

/**
 * Double-submit token: a random value in a cookie scoped to one checkout, repeated in every
 * form. A forged cross-site post cannot read the cookie to copy it; SameSite=Lax keeps the
 * browser from sending it on one anyway.
 */
export function issueCsrfToken(
  request: FastifyRequest,
  reply: FastifyReply,
  sessionId: string,
  secure: boolean,
  framed = false,
): string {
  return issueCsrfCookie(request, reply, `/checkout/${sessionId}`, secure, framed);
}

/** The same token for the pages under `path` (the 3-D Secure page's `/3ds/auth`, the dashboard's `/dashboard`). */
export function issueCsrfCookie(
  request: FastifyRequest,
  reply: FastifyReply,
  path: string,
  secure: boolean,
  framed = false,
): string {
  const existing = readCookie(request, COOKIE);
  const token = existing && TOKEN.test(existing) ? existing : randomBase62(32);
  reply.header('set-cookie', `${COOKIE}=${token}; Path=${path}; HttpOnly; ${sameSite(secure, framed)}`);
  return token;
}

/**
 * Lax, except for a session shown in the inline popup over HTTPS: a browser sends a Lax cookie
 * to a frame only when the merchant's page and the gateway are the same site, so a framed page's
 * cookie is SameSite=None, partitioned by the top-level site (CHIPS), where third-party cookies
 * are otherwise blocked. The forms' origin check still stands: their Origin is the gateway's.
 */
function sameSite(secure: boolean, framed: boolean): string {
  if (!secure) return 'SameSite=Lax';
  return framed ? 'SameSite=None; Secure; Partitioned' : 'SameSite=Lax; Secure';
}

export function csrfTokenMatches(request: FastifyRequest, formToken: unknown): boolean {
  const cookie = readCookie(request, COOKIE);
  if (!cookie || typeof formToken !== 'string') return false;
  // Compared as bytes: a token of as many characters may hold more bytes, which timingSafeEqual refuses by throwing.
  const [ours, theirs] = [Buffer.from(cookie), Buffer.from(formToken)];
  return ours.length === theirs.length && timingSafeEqual(ours, theirs);
}

/** A browser that says where a form came from must say it came from us. */
export function fromOurOrigin(request: FastifyRequest, publicBaseUrl: string): boolean {
  const origin = request.headers.origin;
  return origin === undefined || origin === new URL(publicBaseUrl).origin;
}
