/**
 * Who may do what in the dashboard. Every page and form names the permission it needs; the
 * same table hides a button and refuses its POST, so the two cannot disagree.
 */
export type Role = 'owner' | 'developer' | 'viewer' | 'operator';

export type Permission =
  /** See a merchant's payments, payouts, balance, keys' public parts, deliveries and audit log. */
  | 'read'
  /** Refund a payment. */
  | 'refund'
  /** Send money out of the balance. */
  | 'payout'
  /** Roll API keys. */
  | 'keys'
  /** Change the webhook URL or secret, send a test event, retry a delivery. */
  | 'webhooks'
  /** Business name, logo, colour, receipts. */
  | 'settings'
  /** Invite, change and remove team members. */
  | 'team'
  /** Make payment links, change their words, turn them off and on. */
  | 'links'
  /** The gateway's own pages: every merchant, their fees and users, the gateway's health. */
  | 'operate';

const GRANTS: Record<Role, ReadonlySet<Permission>> = {
  owner: new Set(['read', 'refund', 'payout', 'keys', 'webhooks', 'settings', 'team', 'links']),
  developer: new Set(['read', 'keys', 'webhooks', 'links']),
  viewer: new Set(['read']),
  operator: new Set(['read', 'refund', 'payout', 'keys', 'webhooks', 'settings', 'team', 'links', 'operate']),
};

export function may(role: string, permission: Permission): boolean {
  return GRANTS[role as Role]?.has(permission) ?? false;
}
