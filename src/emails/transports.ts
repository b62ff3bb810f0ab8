import fs from 'node:fs/promises';
import path from 'node:path';
import { createTransport, type SendMailOptions } from 'nodemailer';
import type { Config } from '../config.ts';
import type { Email } from './email-repository.ts';

/** Hands a queued email on; resolves once it is accepted, rejects with a reason worth retrying on. */
export interface Mailer {
  send(email: Email): Promise<void>;
  close(): void;
}

/** The longest one SMTP send may take, connecting included: the worker's lease is sized on it. */
export const SEND_TIMEOUT_MS = 30_000;

/** SMTP when `SMTP_URL` is set; otherwise `.eml` files in `outboxDir`, so a bare install still shows its mail. */
export function createMailer(config: Pick<Config, 'smtpUrl' | 'emailFrom' | 'outboxDir'>): Mailer {
  return config.smtpUrl ? smtpMailer(config.smtpUrl, config.emailFrom) : createOutboxMailer(config);
}

/** `.eml` files in `outboxDir`, whatever else is configured: where mail that must not leave the machine goes. */
export function createOutboxMailer(config: Pick<Config, 'emailFrom' | 'outboxDir'>): Mailer {
  return fileMailer(config.outboxDir, config.emailFrom);
}

function messageOf(email: Email, from: string): SendMailOptions {
  return {
    from,
    to: email.recipient,
    subject: email.subject,
    text: email.text_body,
    html: email.html_body,
    // The same on every try, so that a message sent twice (a crash between sending and
    // recording it) can be recognised as one by the receiving side.
    messageId: `<${email.id}@lipira>`,
    // RFC 3834: out-of-office and other auto-responders should not answer a receipt.
    headers: { 'Auto-Submitted': 'auto-generated' },
  };
}

function smtpMailer(url: string, from: string): Mailer {
  // Each step well inside SEND_TIMEOUT_MS (nodemailer waits minutes by default), so a dead server is a quick, retried failure.
  const transport = createTransport({ url, connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 20_000 });
  return {
    async send(email) {
      await transport.sendMail({ ...messageOf(email, from), signal: AbortSignal.timeout(SEND_TIMEOUT_MS) });
    },
    close: () => transport.close(),
  };
}

/**
 * Writes `<email id>.eml` whole or not at all (flushed temp file, then rename): a reader never
 * sees half a message, and a file is on disk before its email is marked sent.
 */
function fileMailer(dir: string, from: string): Mailer {
  const composer = createTransport({ streamTransport: true, buffer: true, newline: 'windows' });
  return {
    async send(email) {
      const { message } = await composer.sendMail(messageOf(email, from));
      await fs.mkdir(dir, { recursive: true });
      const target = path.join(dir, `${email.id}.eml`);
      const temp = `${target}.${process.pid}.tmp`;
      await fs.writeFile(temp, message as Buffer /* `buffer: true` */, { flush: true });
      await fs.rename(temp, target);
    },
    close: () => composer.close(),
  };
}
