import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { ConnectionError } from 'fastify';
import { ERRORS, type ErrorCode } from '../shared/errors.ts';

/**
 * Answers a request that Node's HTTP parser refused before Fastify saw it (headers over 16 KiB, a
 * malformed request line, headers that took too long) the way every other answer is made: the
 * contract's envelope and an X-Request-Id. It says `Connection: close`, because the connection
 * is closed at once: a keep-alive client that is not told sends its next request into a closed
 * socket. An answer to HEAD carries no body (a client would read it as the next response).
 */
export function answerClientError(error: ConnectionError, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const code: ErrorCode = error.code === 'HPE_HEADER_OVERFLOW' ? 'headersTooLarge' : error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 'requestTimeout' : 'badRequest';
  const { status, message } = ERRORS[code];
  const body = JSON.stringify({ status: 'failed', message, data: null });
  // The bytes being parsed when the parser gave up: the start of the request, when it came in one
  // packet. Fastify types them as a Buffer turned to JSON; Node hands over the Buffer itself.
  const packet: unknown = error.rawPacket;
  const isHead = Buffer.isBuffer(packet) && packet.subarray(0, 5).toString('latin1') === 'HEAD ';
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `X-Request-Id: ${randomUUID()}\r\nConnection: close\r\n\r\n${isHead ? '' : body}`,
    );
  }
  socket.destroy(error);
}
