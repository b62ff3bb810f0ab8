import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import type { App } from '../../http/app-type.ts';
import { clientAddress } from '../../ratelimit/client-address.ts';
import { memoryBuckets } from '../../ratelimit/token-bucket.ts';
import { isEmailAddress, normaliseEmail, requestPasswordReset } from '../../users/user-service.ts';
import { issueCsrfCookie } from '../../web/csrf.ts';
import { FORM, PAGE, type DashboardDeps, type Form, type PageGuard, type Query } from '../page-context.ts';
import { renderForgotPasswordPage, renderResetSentPage, renderTooManyResetsPage } from './recovery-views.ts';

const HOUR_SECONDS = 3_600;
/**
 * Links one client address may ask for: 10 at once, 10 an hour after that. Each asks for an email
 * to be sent, so every request counts, not only failures as at sign-in.
 */
const PER_ADDRESS = { capacity: 10, ratePerSecond: 10 / HOUR_SECONDS };
/**
 * Links one email address may be sent: 3 at once, 3 an hour after that, however many client
 * addresses ask, so that nobody can fill an inbox. Counted for any text typed, account or not; past
 * it the answer is the same and no email is sent, so the limit tells nothing either.
 */
const PER_EMAIL = { capacity: 3, ratePerSecond: 3 / HOUR_SECONDS };
const NOT_AN_ADDRESS = 'Type the email address you sign in with, such as name@example.com.';

/**
 * "Forgot your password?": a form for an address, answered the same whether or not the address
 * has an account (the same redirect to the same page). The work that differs (a link and an
 * email written for an account, nothing otherwise) runs once the answer has left, so its timing
 * tells nothing either. Limited per client address and per email address, in this process's memory.
 */
export function registerForgotPasswordPages(
  app: App,
  { config, database, clock }: DashboardDeps,
  guard: PageGuard,
): void {
  const db = database.db;
  const byAddress = memoryBuckets(PER_ADDRESS);
  const byEmail = memoryBuckets(PER_EMAIL);
  const later = afterAnswer(app);
  const csrf = (request: FastifyRequest, reply: FastifyReply) =>
    issueCsrfCookie(request, reply, '/dashboard', guard.secure);

  app.get<{ Querystring: Query }>('/dashboard/forgot-password', PAGE, async (request, reply) => {
    if (request.query.sent !== undefined) return guard.html(reply, 200, renderResetSentPage());
    return guard.html(reply, 200, renderForgotPasswordPage(csrf(request, reply), { email: '', error: null }));
  });

  app.post<{ Body: Form }>('/dashboard/forgot-password', FORM, async (request, reply) => {
    if (!guard.formIsOurs(request, reply)) return reply;
    if ((await byAddress.take(clientAddress(request, config.clientAddressHeader)))?.allowed === false)
      return guard.html(reply, 429, renderTooManyResetsPage());
    const typed = (request.body.email ?? '').trim();
    const email = normaliseEmail(typed);
    if (!isEmailAddress(email))
      return guard.html(
        reply,
        422,
        renderForgotPasswordPage(csrf(request, reply), { email: typed, error: NOT_AN_ADDRESS }),
      );
    if ((await byEmail.take(email))?.allowed !== false) {
      const now = clock.now();
      later(reply, request.log, () => requestPasswordReset(db, config, email, now));
    }
    return reply.redirect('/dashboard/forgot-password?sent=1', 303);
  });
}

/**
 * Runs work once a request's answer has left (its response closed), so that how long the work
 * takes never shows in the answer. A failure is logged: the answer is gone. Closing the server
 * waits for work begun or due (Fastify's onClose comes before the database closes).
 */
function afterAnswer(app: App): (reply: FastifyReply, log: FastifyBaseLogger, work: () => Promise<void>) => void {
  const pending = new Set<Promise<void>>();
  app.addHook('onClose', async () => {
    await Promise.allSettled(pending);
  });
  return (reply, log, work) => {
    const done = new Promise<void>((resolve) =>
      reply.raw.once('close', () =>
        work()
          .catch((error: unknown) => log.error({ err: error }, 'work after an answer failed'))
          .finally(resolve),
      ),
    ).finally(() => pending.delete(done));
    pending.add(done);
  };
}
