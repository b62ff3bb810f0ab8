/**
 * Numbers no migration has: 0006 was never written (0005 has been followed by 0007 since the
 * first releases). A database records a migration by its name, so a gap is never filled in.
 */
const NUMBERS_NEVER_USED = new Set([6]);

/** The number a migration's name starts with (`0011_bank_transfer_accounts` → 11). */
function numberOf(name: string): number {
  const digits = /^(\d{4})_[a-z0-9_]+$/.exec(name)?.[1];
  if (digits === undefined) throw new Error(`Migration "${name}" is not named NNNN_words`);
  return Number(digits);
}

/**
 * The migrations ordered by the number in their names, refusing two with one number and a number
 * skipped (other than those never used): a migration added out of turn stops every start.
 */
export function inNumberOrder<Entry extends { name: string }>(migrations: readonly Entry[]): Entry[] {
  const ordered = [...migrations].sort((a, b) => numberOf(a.name) - numberOf(b.name));
  let expected = 1;
  for (const { name } of ordered) {
    while (NUMBERS_NEVER_USED.has(expected)) expected += 1;
    const number = numberOf(name);
    if (NUMBERS_NEVER_USED.has(number)) throw new Error(`Migration "${name}" takes a number kept unused`);
    if (number < expected) throw new Error(`Two migrations are numbered ${name.slice(0, 4)}`);
    if (number > expected) throw new Error(`No migration is numbered ${String(expected).padStart(4, '0')}`);
    expected += 1;
  }
  return ordered;
}
