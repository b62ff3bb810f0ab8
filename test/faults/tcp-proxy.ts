import net from 'node:net';

/**
 * How the proxy cuts the link, beyond resetting every connection it carries:
 * - `refuse`: it stops listening, so new connections are refused at once;
 * - `blackhole`: new connections are accepted and never answered;
 * - `freeze`: nothing is reset; open connections and new ones alike go silent both ways, the
 *   way a network partition looks (the hardest case: only a timeout ends a wait, on either side).
 */
export type Cut = 'refuse' | 'blackhole' | 'freeze';

/** A real TCP proxy on loopback in front of `target`, which can cut the link and restore it. */
export interface TcpProxy {
  readonly port: number;
  /** Connections it has accepted since it started, forwarded or not. */
  readonly accepted: number;
  cut(how: Cut): Promise<void>;
  /** Forwards new connections again. Silenced ones stay silent: their clients must give up on them. */
  restore(): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const server = net.createServer();
  /** Client and upstream sockets of every connection being forwarded. */
  const forwarded = new Set<[net.Socket, net.Socket]>();
  /** Sockets, client or upstream, kept open but never written to again. */
  const silenced = new Set<net.Socket>();
  let state: 'open' | Cut = 'open';
  let accepted = 0;

  const silence = (socket: net.Socket) => {
    silenced.add(socket);
    // Read and drop what arrives, so the peer's writes succeed and it waits for an answer.
    socket.on('data', () => undefined);
    socket.on('error', () => undefined);
    socket.on('close', () => silenced.delete(socket));
  };

  server.on('connection', (client) => {
    accepted += 1;
    if (state !== 'open') return silence(client);
    const upstream = net.connect(target.port, target.host);
    const pair: [net.Socket, net.Socket] = [client, upstream];
    forwarded.add(pair);
    const end = () => {
      if (!forwarded.delete(pair)) return;
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
    client.pipe(upstream);
    upstream.pipe(client);
  });

  const listen = (port: number) =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
  await listen(0);
  const port = (server.address() as net.AddressInfo).port;

  return {
    port,
    get accepted() {
      return accepted;
    },
    async cut(how) {
      state = how;
      for (const pair of [...forwarded]) {
        forwarded.delete(pair);
        const [client, upstream] = pair;
        if (how === 'freeze') {
          // Stop carrying bytes either way without telling either side.
          client.unpipe(upstream);
          upstream.unpipe(client);
          silence(client);
          silence(upstream);
        } else {
          client.resetAndDestroy();
          upstream.destroy();
        }
      }
      // Stops accepting at once; its callback would wait for the silenced connections.
      if (how === 'refuse') server.close();
    },
    async restore() {
      if (!server.listening) await listen(port);
      state = 'open';
    },
    async close() {
      for (const [client, upstream] of forwarded) {
        client.destroy();
        upstream.destroy();
      }
      for (const socket of silenced) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
