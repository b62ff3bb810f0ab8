import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One callback the relay passed on, and what each gateway process answered. */
export interface Relayed {
  body: string;
  statuses: number[];
}

export interface CallbackRelay {
  /** Where the fake Airtel posts its callbacks. */
  url: string;
  relayed: Relayed[];
  close(): Promise<void>;
}

/**
 * Stands where Airtel's callbacks arrive and posts each one, unchanged, to every target at the
 * same moment, as a load balancer in front of several gateway processes would when the operator
 * sends it twice. Answers with the targets' status when they all agree, 502 when they do not, so
 * the fake's `sendCallback` shows both agreement and its value.
 */
export async function startCallbackRelay(targets: string[]): Promise<CallbackRelay> {
  const relayed: Relayed[] = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      void Promise.all(targets.map((target) => post(target, body))).then((statuses) => {
        relayed.push({ body, statuses });
        response.writeHead(statuses.every((status) => status === statuses[0]) ? statuses[0]! : 502).end();
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    relayed,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The target's HTTP status, or 0 when it could not be reached. */
async function post(target: string, body: string): Promise<number> {
  try {
    const response = await fetch(target, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body });
    await response.arrayBuffer();
    return response.status;
  } catch {
    return 0;
  }
}
