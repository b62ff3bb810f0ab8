import type { Socket } from 'node:net';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.ts';
import { addressGroup, clientAddress } from '../ratelimit/client-address.ts';
import { ApiError } from '../shared/errors.ts';
import type { App } from './app-type.ts';

const WARNING_INTERVAL_MS = 10_000;

/**
 * Caps the connections one client address (IPv6 by /64, as the rate limits count) holds at once,
 * so that one address cannot take all of MAX_CONNECTIONS and starve everyone else: 2,100 idle
 * sockets from one address used to make other clients' health probes fail.
 *
 * Without a trusted proxy the client is the socket's peer, known when the connection arrives: one
 * over the cap is closed at once, unanswered, as MAX_CONNECTIONS does. Behind a proxy every socket
 * comes from the proxy, which must not be capped, and the client is known only from a request's
 * header: a connection counts for the client of its latest request (a proxy may reuse one
 * connection for several clients), and a request that takes its client over the cap is answered
 * 429 with Connection: close. Counts are per process, like MAX_CONNECTIONS.
 */
export function limitConnectionsPerAddress(app: App, config: Config): void {
  const counts = new AddressCounts(config.maxConnectionsPerAddress, app.log);
  if (config.clientAddressHeader === null) countSockets(app, counts);
  else countRequestClients(app, counts, config.clientAddressHeader);
}

function countSockets(app: App, counts: AddressCounts): void {
  app.server.on('connection', (socket: Socket) => {
    const address = addressGroup(socket.remoteAddress ?? '');
    const admitted = counts.take(address);
    socket.once('close', () => counts.release(address));
    if (!admitted) socket.destroy();
  });
}

function countRequestClients(app: App, counts: AddressCounts, header: string): void {
  const holders = new WeakMap<Socket, string>();
  app.addHook('onRequest', (request, reply, done) => {
    const socket = request.socket;
    const address = clientAddress(request, header);
    const holder = holders.get(socket);
    if (holder === address) return done();
    if (holder === undefined) socket.once('close', () => counts.release(holders.get(socket)!));
    else counts.release(holder);
    holders.set(socket, address);
    // Counted even when refused, until the connection closes just after the answer.
    if (counts.take(address)) return done();
    reply.header('connection', 'close');
    done(new ApiError('tooManyConnections'));
  });
}

/** Open connections per address, and the warning (at most every 10 s) when one is refused. */
class AddressCounts {
  private readonly open = new Map<string, number>();
  private warnedAt = -Infinity;

  constructor(
    private readonly cap: number,
    private readonly log: FastifyBaseLogger,
  ) {}

  /** Counts one more connection for `address`; false when that takes it over the cap. */
  take(address: string): boolean {
    const count = (this.open.get(address) ?? 0) + 1;
    this.open.set(address, count);
    if (count <= this.cap) return true;
    this.warn(address);
    return false;
  }

  release(address: string): void {
    const count = this.open.get(address)! - 1;
    if (count === 0) this.open.delete(address);
    else this.open.set(address, count);
  }

  private warn(address: string): void {
    if (performance.now() - this.warnedAt < WARNING_INTERVAL_MS) return;
    this.warnedAt = performance.now();
    this.log.warn(
      { address, maxConnectionsPerAddress: this.cap },
      'connections over MAX_CONNECTIONS_PER_ADDRESS from one address are being closed',
    );
  }
}
