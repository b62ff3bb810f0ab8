import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { currentBody } from './fixtures.ts';
import { call, type ApiResponse } from './gateway.ts';
import { eventually } from './mobile-money.ts';

export interface HeldRequests {
  /**
   * Sends the rest of each body; resolves to the status lines the gateway then answered. Call it
   * in a `finally` too: a gateway closes only once its requests in flight are answered. A second
   * call answers as the first.
   */
  release(): Promise<string[]>;
}

/**
 * Puts `count` requests in flight at the gateway and keeps them there: each a checkout session's
 * create, its headers sent and its body but for the last byte, as a slow client on a bad network
 * would. The gateway counts them from their headers until it answers, which it cannot do before
 * the body is whole: work in flight, without a test hook in the gateway. Resolves once the gateway
 * refuses `probe` as busy: by default a page, refused once `OVERLOAD_MAX_IN_FLIGHT` is at `count`.
 */
export async function holdRequests(
  base: string,
  secretKey: string,
  count: number,
  probe: () => Promise<ApiResponse> = () => call(base, '/checkout/x'),
): Promise<HeldRequests> {
  // A probe the gateway reads before the held requests' headers is in flight beside them and can
  // push the last one over the limit, refused: then none is held in its place, and all is tried again.
  for (let tries = 1; ; tries++) {
    const held = await Promise.all(Array.from({ length: count }, () => holdOne(base, secretKey)));
    // The gateway reads the new connections' headers in its next turns; a probe on a connection
    // kept from earlier requests would otherwise often be read first.
    await sleep(50);
    let released: Promise<string[]> | null = null;
    const release = () => {
      released ??= Promise.all(held.map((request) => request.release()));
      return released;
    };
    try {
      await eventually('the gateway to refuse work as busy', async () => {
        if (held.some((request) => request.answeredEarly())) throw new HeldRequestAnswered();
        return (await probe()).status === 503;
      });
      if (!held.some((request) => request.answeredEarly())) return { release };
      throw new HeldRequestAnswered();
    } catch (error) {
      await release();
      if (!(error instanceof HeldRequestAnswered) || tries === 3) throw error;
    }
  }
}

/** A held request was answered (refused as busy) before its body was whole. */
class HeldRequestAnswered extends Error {}

/** One create held in flight: its body but for the last byte sent. */
async function holdOne(
  base: string,
  secretKey: string,
): Promise<{ release(): Promise<string>; answeredEarly(): boolean }> {
  const { hostname, port } = new URL(base);
  const body = JSON.stringify(currentBody());
  const socket = net.connect(Number(port), hostname);
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  let answer = '';
  socket.on('data', (chunk) => (answer += chunk));
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.write(
    `POST /payment HTTP/1.1\r\nHost: ${hostname}:${port}\r\nAuthorization: Bearer ${secretKey}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n` +
      body.slice(0, -1),
  );
  let released = false;
  return {
    answeredEarly: () => !released && answer !== '',
    release() {
      released = true;
      socket.write(body.slice(-1));
      return closed.then(() => answer.split('\r\n')[0] ?? '');
    },
  };
}
