import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { ConnectionError } from 'fastify';
import { ERRORS, type ErrorCode } from '../shared/errors.ts';

/**
 * Answers a request that Node's HTTP parser refused before Fastify saw it (headers over 16 KiB, a
 * malformed request line, headers that took too long) the way every other answer is made: the
 * envelope (docs/integrate/api-reference.md#envelope) and an X-Request-Id. It says `Connection: close`, because the connection
 * is closed at once: a keep-alive client that is not told sends its next request into a closed
 * socket. An answer to HEAD carries no body (a client would read it as the next response). So
 * does a 431 whose method cannot be read back: headers over 16 KiB usually come in several
 * packets, the request line in an earlier one than the packet the parser gave up on, and a HEAD
 * client reads any body as garbage while every other client still gets the status. A client that
 * took too long to send its head (408) or sent one that cannot be read (400) keeps the envelope.
 * `headers` are those every answer carries (response-headers.ts).
 */
export function answerClientError(error: ConnectionError, socket: Socket, headers: Record<string, string>): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const code: ErrorCode =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? 'headersTooLarge'
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? 'requestTimeout'
        : 'badRequest';
  const { status, message } = ERRORS[code];
  const body = JSON.stringify({ status: 'failed', message, data: null });
  const method = refusedMethod(error);
  const unknownOverflow = method === null && code === 'headersTooLarge';
  const representation = unknownOverflow
    ? 'Content-Length: 0\r\n'
    : `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n`;
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n${representation}${headerLines(headers)}X-Request-Id: ${randomUUID()}\r\nConnection: close\r\n\r\n` +
        (unknownOverflow || method === 'HEAD' ? '' : body),
    );
  }
  socket.destroy(error);
}

const headerLines = (headers: Record<string, string>) =>
  Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');

/**
 * The method of the request the parser refused, read back from the bytes it had parsed of the
 * packet in hand (Fastify types them as a Buffer turned to JSON; Node hands over the Buffer): the
 * last `METHOD /` in them, as the request line may follow the end of the connection's previous
 * request (a body the server answered before reading it all arrives with the next request) and
 * be cut short where the parser gave up.
 */
function refusedMethod(error: ConnectionError): string | null {
  const packet: unknown = error.rawPacket;
  if (!Buffer.isBuffer(packet)) return null;
  const parsed = packet.subarray(0, error.bytesParsed + 1).toString('latin1');
  const lines = [...parsed.matchAll(/(?<![A-Za-z])([A-Z]+) \//g)];
  return lines.at(-1)?.[1] ?? null;
}
