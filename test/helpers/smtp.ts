import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface Mail {
  envelopeTo: string[];
  headers: Map<string, string>;
  text: string;
  html: string;
}

export interface SmtpPeer {
  port: number;
  mails: Mail[];
  close(): Promise<void>;
}

/** A real SMTP server on loopback (no auth, no STARTTLS) that keeps every message it accepts. */
export async function startSmtp(port = 0): Promise<SmtpPeer> {
  const mails: Mail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        mails.push({
          envelopeTo: session.envelope.rcptTo.map((to) => to.address),
          ...parseMessage(Buffer.concat(chunks).toString('utf8')),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  return {
    port: (server.server.address() as AddressInfo).port,
    mails,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Just enough RFC 5322/MIME reading for what nodemailer writes: headers and a multipart/alternative of text and HTML. */
export function parseMessage(raw: string): Omit<Mail, 'envelopeTo'> {
  const { headers, body } = splitEntity(raw);
  const boundary = /boundary="?([^";]+)"?/.exec(headers.get('content-type') ?? '')?.[1];
  assert.ok(boundary, `a multipart message: ${raw.slice(0, 500)}`);
  const parts = body.split(`--${boundary}`).slice(1, -1).map(splitEntity);
  const partOf = (type: string) => {
    const part = parts.find((candidate) => candidate.headers.get('content-type')?.startsWith(type));
    assert.ok(part, `a ${type} part`);
    return decodeBody(part.body, part.headers.get('content-transfer-encoding'));
  };
  return { headers, text: partOf('text/plain'), html: partOf('text/html') };
}

function splitEntity(raw: string): { headers: Map<string, string>; body: string } {
  const trimmed = raw.replace(/^\r?\n/, '');
  const end = trimmed.search(/\r?\n\r?\n/);
  const head = trimmed.slice(0, end).replace(/\r?\n[ \t]+/g, ' ');
  const headers = new Map(
    head
      .split(/\r?\n/)
      .map(
        (line) =>
          [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()] as [
            string,
            string,
          ],
      ),
  );
  return { headers, body: trimmed.slice(end).replace(/^\r?\n\r?\n/, '') };
}

function decodeBody(body: string, encoding: string | undefined): string {
  if (encoding === 'base64') return Buffer.from(body, 'base64').toString('utf8');
  if (encoding !== 'quoted-printable') return body;
  const bytes = body
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  return Buffer.from(bytes, 'latin1').toString('utf8');
}
