import http from 'node:http';

/** A response read to its end. */
export interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/**
 * Enough sockets that a request never waits in the client for one: a wait there would be counted
 * as the gateway's latency, and would hide an overload from the gateway (requests queued here are
 * not in flight there). The gateway's own MAX_CONNECTIONS (2,048) is the most it takes at once.
 */
const MAX_SOCKETS = 2048;
/** A request unanswered this long (no byte either way) has failed. */
const TIMEOUT_MS = 30_000;

/** Keep-alive HTTP to the gateway, as browsers and merchants' servers reuse their connections. */
export class GatewayClient {
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: MAX_SOCKETS });
  private readonly target: URL;

  constructor(origin: string) {
    this.target = new URL(origin);
  }

  request(
    method: 'GET' | 'POST',
    path: string,
    headers: http.OutgoingHttpHeaders = {},
    body?: string,
  ): Promise<Answer> {
    return new Promise((resolve, reject) => {
      const request = http.request(
        {
          host: this.target.hostname,
          port: this.target.port,
          method,
          path,
          headers: body === undefined ? headers : { ...headers, 'content-length': Buffer.byteLength(body) },
          agent: this.agent,
          timeout: TIMEOUT_MS,
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () =>
            resolve({
              status: response.statusCode ?? 0,
              headers: response.headers,
              body: Buffer.concat(chunks).toString('utf8'),
            }),
          );
          response.on('error', reject);
        },
      );
      request.on('timeout', () => request.destroy(new Error(`no answer within ${TIMEOUT_MS / 1000} s`)));
      request.on('error', reject);
      request.end(body);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}
