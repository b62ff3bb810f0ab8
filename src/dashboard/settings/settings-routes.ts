import type { FastifyReply } from 'fastify';
import type { App } from '../../http/app-type.ts';
import { isBrandColor, isBrandLogoUrl, updateMerchantSettings } from '../../merchants/merchant-service.ts';
import type { Merchant } from '../../merchants/merchant-repository.ts';
import { recordAudit } from '../../users/audit.ts';
import { cancelInvitation, inviteTeamMember } from '../../users/invitations.ts';
import { changeTeamMember, TEAM_ROLES, UserError, type TeamRole } from '../../users/user-service.ts';
import {
  FORM,
  PAGE,
  renderNotFoundPage,
  type DashboardDeps,
  type Form,
  type MerchantPage,
  type PageGuard,
  type Query,
} from '../page-context.ts';
import {
  renderCancelInvitationPage,
  renderRemoveMemberPage,
  renderSettingsPage,
  type BusinessForm,
  type SettingsState,
} from './settings-views.ts';
import { findOpenInvitation, findTeamMember, listOpenInvitations, listTeam } from './team-repository.ts';
import { noticeNamed, NOTHING_CHANGED } from '../layout.ts';
import { registerMemberResets } from './member-resets.ts';

const NOTICES: Record<string, string> = {
  settings: 'The settings are saved.',
  invited: 'The invitation is on its way.',
  role: 'The role is changed.',
  removed: 'The team member is removed and signed out.',
  cancelled: 'The invitation is cancelled: its link no longer works.',
  two_factor_reset:
    'Two-factor sign-in is reset: the member is signed out, emailed, and sets it up again at their next sign-in.',
  password_reset: 'The password is reset: the member is signed out and emailed a link to choose a new one.',
  unchanged: NOTHING_CHANGED,
};

/** How the audit entry names each changed field: as the form does. */
const AUDIT_NAMES: Record<keyof BusinessForm, string> = {
  name: 'name',
  logoUrl: 'logo_url',
  brandColor: 'brand_color',
  receipts: 'receipts',
};

const isTeamRole = (role: string | undefined): role is TeamRole =>
  (TEAM_ROLES as readonly string[]).includes(role ?? '');

const businessOf = (merchant: Merchant): BusinessForm => ({
  name: merchant.name,
  logoUrl: merchant.logo_url ?? '',
  brandColor: merchant.brand_color ?? '',
  receipts: merchant.receipts_enabled === 1,
});

/** Why the business form cannot be kept, or null. */
function businessProblem(form: BusinessForm): string | null {
  if (form.name === '' || form.name.length > 100) return 'The business name must be 1 to 100 characters.';
  if (form.logoUrl !== '' && !isBrandLogoUrl(form.logoUrl))
    return 'The logo URL must be an https:// address, such as https://shop.example.com/logo.png.';
  if (form.brandColor !== '' && !isBrandColor(form.brandColor))
    return 'The brand colour must be written as # and six hexadecimal digits, such as #1a7f5a.';
  return null;
}

/**
 * The business (name, logo, brand colour, receipts: 'settings') and the team (invite, cancel an
 * invitation, change role, remove, reset a member's two-factor sign-in or password: 'team').
 * Cancelling an invitation and removing a member, which cannot be undone, are each asked for on a
 * page of their own first. Every change is audited in its transaction; team changes go through the
 * users' services.
 */
export function registerSettingsPages(app: App, deps: DashboardDeps, guard: PageGuard): void {
  const { config, database, clock } = deps;
  const db = database.db;

  async function show(reply: FastifyReply, page: MerchantPage, status: number, extra: Partial<SettingsState> = {}) {
    const [team, invitations] = await Promise.all([
      listTeam(db, page.merchant.id),
      listOpenInvitations(db, page.merchant.id, clock.now()),
    ]);
    const state: SettingsState = {
      business: businessOf(page.merchant),
      team,
      invitations,
      timeZone: config.timeZone,
      invite: { email: '', role: 'viewer' },
      ...extra,
    };
    return guard.html(reply, status, renderSettingsPage(page, state));
  }

  app.get<{ Querystring: Query }>('/dashboard/settings', PAGE, async (request, reply) => {
    const page = await guard.merchantPage(request, reply, 'read');
    if (!page) return reply;
    return show(reply, page, 200, { notice: noticeNamed(NOTICES, request.query.done) });
  });

  app.post<{ Body: Form }>('/dashboard/settings', FORM, async (request, reply) => {
    const page = await guard.merchantForm(request, reply, 'settings');
    if (!page) return reply;
    const { body } = request;
    const form: BusinessForm = {
      name: (body.name ?? '').trim(),
      logoUrl: (body.logo_url ?? '').trim(),
      brandColor: (body.brand_color ?? '').trim().toLowerCase(),
      receipts: body.receipts === 'on',
    };
    const problem = businessProblem(form);
    if (problem) return show(reply, page, 422, { business: form, error: problem });
    const before = businessOf(page.merchant);
    const changed = Object.fromEntries(
      (Object.keys(AUDIT_NAMES) as Array<keyof BusinessForm>)
        .filter((field) => form[field] !== before[field])
        .map((field) => [AUDIT_NAMES[field], { from: before[field], to: form[field] }]),
    );
    if (Object.keys(changed).length === 0) return reply.redirect('/dashboard/settings?done=unchanged', 303);
    const now = clock.now();
    await database.transact(async (trx) => {
      await updateMerchantSettings(
        trx,
        page.merchant.id,
        {
          name: form.name,
          logoUrl: form.logoUrl || null,
          brandColor: form.brandColor || null,
          receiptsEnabled: form.receipts,
        },
        now,
      );
      await recordAudit(
        trx,
        {
          merchantId: page.merchant.id,
          userId: page.user.id,
          action: 'merchant.settings',
          subject: page.merchant.id,
          detail: changed,
        },
        now,
      );
    });
    return reply.redirect('/dashboard/settings?done=settings', 303);
  });

  app.post<{ Body: Form }>('/dashboard/settings/team/invite', FORM, async (request, reply) => {
    const page = await guard.merchantForm(request, reply, 'team');
    if (!page) return reply;
    const invite = { email: (request.body.email ?? '').trim(), role: request.body.role ?? '' };
    if (!isTeamRole(invite.role))
      return show(reply, page, 422, { invite, error: 'Choose a role: owner, developer or viewer.' });
    try {
      await inviteTeamMember(
        db,
        config,
        {
          merchantId: page.merchant.id,
          email: invite.email,
          role: invite.role,
          actorId: page.user.id,
        },
        clock.now(),
      );
    } catch (error) {
      if (error instanceof UserError) return show(reply, page, 422, { invite, error: error.message });
      throw error;
    }
    return reply.redirect('/dashboard/settings?done=invited', 303);
  });

  app.get<{ Params: { id: string } }>(
    '/dashboard/settings/team/invitations/:id/cancel',
    PAGE,
    async (request, reply) => {
      const page = await guard.merchantPage(request, reply, 'team');
      if (!page) return reply;
      const invitation = await findOpenInvitation(db, page.merchant.id, request.params.id, clock.now());
      if (!invitation) return guard.html(reply, 404, renderNotFoundPage(page.viewer, 'open invitation'));
      return guard.html(reply, 200, renderCancelInvitationPage(page, invitation, config.timeZone));
    },
  );

  app.post<{ Params: { id: string }; Body: Form }>(
    '/dashboard/settings/team/invitations/:id/cancel',
    FORM,
    async (request, reply) => {
      const page = await guard.merchantForm(request, reply, 'team');
      if (!page) return reply;
      try {
        await cancelInvitation(
          db,
          {
            merchantId: page.merchant.id,
            actorId: page.user.id,
            invitationId: request.params.id,
          },
          clock.now(),
        );
      } catch (error) {
        if (error instanceof UserError) return show(reply, page, 422, { error: error.message });
        throw error;
      }
      return reply.redirect('/dashboard/settings?done=cancelled', 303);
    },
  );

  // Removal is asked for first on a page of its own, as cancelling an invitation is; its button posts the removal.
  app.get<{ Params: { id: string } }>('/dashboard/settings/team/:id/remove', PAGE, async (request, reply) => {
    const page = await guard.merchantPage(request, reply, 'team');
    if (!page) return reply;
    const member = await findTeamMember(db, page.merchant.id, request.params.id);
    if (!member) return guard.html(reply, 404, renderNotFoundPage(page.viewer, 'team member'));
    return guard.html(reply, 200, renderRemoveMemberPage(page, member));
  });

  /** A change to one member: `to` reads the wanted role from the form (null: not a role). */
  function memberChange(path: string, to: (form: Form) => TeamRole | 'removed' | null) {
    app.post<{ Params: { id: string }; Body: Form }>(path, FORM, async (request, reply) => {
      const page = await guard.merchantForm(request, reply, 'team');
      if (!page) return reply;
      const role = to(request.body);
      if (role === null) return show(reply, page, 422, { error: 'Choose a role: owner, developer or viewer.' });
      let changed: boolean;
      try {
        changed = await changeTeamMember(
          db,
          { merchantId: page.merchant.id, actorId: page.user.id, userId: request.params.id },
          role,
          clock.now(),
        );
      } catch (error) {
        if (error instanceof UserError) return show(reply, page, 422, { error: error.message });
        throw error;
      }
      const done = !changed ? 'unchanged' : role === 'removed' ? 'removed' : 'role';
      return reply.redirect(`/dashboard/settings?done=${done}`, 303);
    });
  }
  memberChange('/dashboard/settings/team/:id/role', (form) => (isTeamRole(form.role) ? form.role : null));
  memberChange('/dashboard/settings/team/:id/remove', () => 'removed');

  registerMemberResets(app, deps, guard, {
    path: '/dashboard/settings/team/:id',
    async open(request, reply, form) {
      const page = form
        ? await guard.merchantForm(request, reply, 'team')
        : await guard.merchantPage(request, reply, 'team');
      if (!page) return null;
      return {
        page,
        viewer: page.viewer,
        by: { actor: page.user, merchantId: page.merchant.id },
        memberId: request.params.id!,
        back: '/dashboard/settings',
      };
    },
    refuse: (reply, target, message) => show(reply, target.page, 422, { error: message }),
    done: (_target, kind) =>
      `/dashboard/settings?done=${kind === 'two-factor' ? 'two_factor_reset' : 'password_reset'}`,
  });
}
