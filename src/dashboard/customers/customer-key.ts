import { sql, type RawBuilder } from 'kysely';

/**
 * Who paid, as the customers page counts them: a payment's email, lowercased, or, for a payment
 * without one, the mobile number it was paid from (masked, as the gateway stores numbers, so two
 * numbers masked alike are one customer). A payment with neither (a card paid without an email)
 * is nobody's. `email` and `mobile` name the columns to read (a session's mobile is its paid charge's).
 */
export function customerKeySql(email: string, mobile: string): RawBuilder<string | null> {
  return sql<string | null>`coalesce(lower(nullif(${sql.ref(email)}, '')), ${sql.ref(mobile)})`;
}

/** Whether a customer page's key can be one: an email, or a masked Malawian number (`+265991xxxx67`). */
export function isCustomerKey(key: string): boolean {
  return key.length <= 320 && (key.includes('@') || /^\+265\d{3}x{4}\d{2}$/.test(key));
}
