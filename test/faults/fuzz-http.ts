import http from 'node:http';
import type { KeyState } from './fuzz-requests.ts';

/** One generated request, sent exactly as written: no header is added or fixed up on the way. */
export interface FuzzRequest {
  method: string;
  /** Path and query, already percent-encoded where the generator chose to encode. */
  path: string;
  headers: Record<string, string>;
  body?: string;
  /** What the generator meant the request to be, for the oracles (fuzz-oracle.ts). */
  intent: RequestIntent;
}

export interface RequestIntent {
  /** Whether the key it presents (in the header, or a legacy body) is a real, current secret key, as far as the request alone tells. */
  key: KeyState;
  /** It reaches the route: the route's own method, and path values the router cannot read as another path. */
  routed: boolean;
  /** It reaches a route that reads bodies, with one over the configured limit. */
  oversized: boolean;
  /** It reaches a route that reads JSON, with text that does not parse to an object. */
  notJsonObject: boolean;
  /** How its Content-Type reads: absent or a media type (`readable`), not a media type (`unreadable`), or generated text (`unknown`). */
  contentType: 'readable' | 'unreadable' | 'unknown';
  /** Its path is printable ASCII, as HTTP requires (Node's parser refuses anything else with a 400). */
  readable: boolean;
  /** Bytes of its request line and headers, which Node limits to 16 KiB. */
  headBytes: number;
}

export interface FuzzResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

/** No answer within this long is a hang, reported like a 5xx. */
const ANSWER_TIMEOUT_MS = 15_000;

/**
 * Sends fuzz requests over a fixed pool of keep-alive connections, as a load generator would,
 * with `node:http` rather than fetch: fetch adds a content type to every text body, and the run
 * must also send none.
 */
export class FuzzClient {
  private readonly agent: http.Agent;
  private readonly origin: URL;

  constructor(
    base: string,
    readonly inFlight: number,
  ) {
    this.origin = new URL(base);
    this.agent = new http.Agent({ keepAlive: true, maxSockets: inFlight });
  }

  send(request: FuzzRequest): Promise<FuzzResponse> {
    return new Promise((resolve, reject) => {
      const headers = { ...request.headers };
      const body = request.body === undefined ? undefined : Buffer.from(request.body, 'utf8');
      if (body) headers['content-length'] = String(body.length);
      const outgoing = http.request(
        {
          host: this.origin.hostname,
          port: this.origin.port,
          method: request.method,
          path: request.path,
          headers,
          agent: this.agent,
        },
        (response) => {
          // An event stream goes on until the client leaves: its status and headers are the answer.
          if (String(response.headers['content-type']).startsWith('text/event-stream')) {
            response.destroy();
            resolve({ status: response.statusCode ?? 0, headers: response.headers, text: '' });
            return;
          }
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () =>
            resolve({
              status: response.statusCode ?? 0,
              headers: response.headers,
              text: Buffer.concat(chunks).toString('utf8'),
            }),
          );
          response.on('error', reject);
        },
      );
      outgoing.setTimeout(ANSWER_TIMEOUT_MS, () =>
        outgoing.destroy(new Error(`no answer within ${ANSWER_TIMEOUT_MS} ms`)),
      );
      outgoing.on('error', reject);
      outgoing.end(body);
    });
  }

  /** Sends every request with at most `inFlight` outstanding; answers (or errors) in request order. */
  async sendAll(requests: FuzzRequest[]): Promise<Array<FuzzResponse | Error>> {
    const answers: Array<FuzzResponse | Error> = new Array(requests.length);
    let next = 0;
    const lane = async () => {
      while (next < requests.length) {
        const index = next++;
        answers[index] = await this.send(requests[index]!).catch((error: unknown) =>
          error instanceof Error ? error : new Error(String(error)),
        );
      }
    };
    await Promise.all(Array.from({ length: this.inFlight }, lane));
    return answers;
  }
}
