import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App } from '../../http/app-type.ts';
import {
  resetPassword,
  resetTwoFactor,
  twoFactorToReset,
  userToReset,
  type Resetter,
} from '../../users/account-resets.ts';
import { UserError } from '../../users/user-service.ts';
import type { Viewer } from '../layout.ts';
import { FORM, PAGE, type DashboardDeps, type Form, type PageGuard } from '../page-context.ts';
import { renderResetConfirmPage, type ResetKind } from './member-reset-views.ts';

type Params = Record<string, string>;

/** A page's hold on one member to reset, once its guard let it through. */
export interface ResetTarget {
  viewer: Viewer;
  by: Resetter;
  memberId: string;
  /** The page the confirmation goes back to. */
  back: string;
}

/** Where a member's resets are offered: the owner's team page, the operator's page of a merchant. */
export interface ResetPlace<Target extends ResetTarget> {
  /** The member's path, in Fastify's pattern; `/reset-two-factor` and `/reset-password` follow it. */
  path: string;
  /** The guard of the page (GET) or the form (POST); null once the browser was answered. */
  open(
    request: FastifyRequest<{ Params: Params; Body: Form }>,
    reply: FastifyReply,
    form: boolean,
  ): Promise<Target | null>;
  /** Answers a refusal (no such member, oneself, nothing to reset) on the place's own page. */
  refuse(reply: FastifyReply, target: Target, message: string): Promise<FastifyReply>;
  /** Where the browser goes once the reset is done. */
  done(target: Target, kind: ResetKind): string;
}

/**
 * A member's two resets, each a confirmation page of its own (GET) and its form (POST), which
 * posts back to the page's own path: no reset is one click from a list.
 */
export function registerMemberResets<Target extends ResetTarget>(
  app: App,
  { config, database, clock }: DashboardDeps,
  guard: PageGuard,
  place: ResetPlace<Target>,
): void {
  const db = database.db;
  for (const kind of ['two-factor', 'password'] as const) {
    const path = `${place.path}/reset-${kind}`;

    app.get<{ Params: Params; Body: Form }>(path, PAGE, async (request, reply) => {
      const target = await place.open(request, reply, false);
      if (!target) return reply;
      try {
        const member = await (kind === 'two-factor' ? twoFactorToReset : userToReset)(db, target.by, target.memberId);
        return guard.html(reply, 200, renderResetConfirmPage(target.viewer, kind, member, target.back));
      } catch (error) {
        if (error instanceof UserError) return place.refuse(reply, target, error.message);
        throw error;
      }
    });

    app.post<{ Params: Params; Body: Form }>(path, FORM, async (request, reply) => {
      const target = await place.open(request, reply, true);
      if (!target) return reply;
      const reset = kind === 'two-factor' ? resetTwoFactor : resetPassword;
      try {
        await reset(db, config, target.by, target.memberId, clock.now());
      } catch (error) {
        if (error instanceof UserError) return place.refuse(reply, target, error.message);
        throw error;
      }
      return reply.redirect(place.done(target, kind), 303);
    });
  }
}
