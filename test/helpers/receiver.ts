import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
  at: number;
  /** The sender's port: which process of several on this machine sent it (see test/faults/process-sockets.ts). */
  fromPort: number;
}

/** What the receiver answers to its n-th request (1-based); `hang` never answers. A reply may be a promise, to hold the request open a while. */
export type Reply = { status: number; headers?: Record<string, string>; body?: string } | 'hang';

export interface Receiver {
  url: string;
  received: Received[];
  /** Resolves once `count` requests have arrived. */
  waitFor(count: number, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

/**
 * A real HTTP server on loopback standing in for a merchant's webhook endpoint; on `port` when
 * given (e.g. one a merchant's URL already names, while nothing listened there).
 */
export async function startReceiver(
  reply: (n: number, request: Received) => Reply | Promise<Reply> = () => ({ status: 200, body: 'ok' }),
  host = '127.0.0.1',
  port = 0,
): Promise<Receiver> {
  const received: Received[] = [];
  const hanging = new Set<http.ServerResponse>();
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', async () => {
      const entry = {
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
        fromPort: request.socket.remotePort ?? 0,
      };
      received.push(entry);
      const answer = await reply(received.length, entry);
      if (answer === 'hang') {
        hanging.add(response);
        return;
      }
      response.writeHead(answer.status, answer.headers).end(answer.body ?? '');
    });
  });
  await new Promise<void>((resolve) => server.listen(port, host, resolve));
  const { port: listening } = server.address() as AddressInfo;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${listening}/hooks`,
    received,
    async waitFor(count, timeoutMs = 10_000) {
      for (let waited = 0; received.length < count; waited += 25) {
        if (waited > timeoutMs) throw new Error(`expected ${count} webhook requests, got ${received.length}`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      return received;
    },
    async close() {
      for (const response of hanging) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
