import { Secret, TOTP } from 'otpauth';

const PERIOD_SECONDS = 30;
/** One step either side: a phone's clock a little off, or a code typed just as it changed. */
const WINDOW = 1;

function totpOf(secret: string, email = ''): TOTP {
  return new TOTP({
    issuer: 'Lipira',
    label: email,
    algorithm: 'SHA1',
    digits: 6,
    period: PERIOD_SECONDS,
    secret: Secret.fromBase32(secret),
  });
}

/** A new 160-bit secret, in base32 as authenticator apps take it typed. */
export function newTotpSecret(): string {
  return new Secret({ size: 20 }).base32;
}

/** The `otpauth://` URI an authenticator app reads from the QR code. */
export function totpUri(secret: string, email: string): string {
  return totpOf(secret, email).toString();
}

/**
 * The time step of the code, when it is right for `secret` now (±1 step) and later than
 * `lastStep`: a code already accepted, or an older one, is refused, so a code seen over a
 * shoulder cannot be used again while it is still valid.
 */
export function acceptedStep(secret: string, code: string, lastStep: number | null, now: number): number | null {
  const token = code.replace(/\s/g, '');
  if (!/^\d{6}$/.test(token)) return null;
  const delta = totpOf(secret).validate({ token, timestamp: now, window: WINDOW });
  if (delta === null) return null;
  const step = Math.floor(now / 1000 / PERIOD_SECONDS) + delta;
  return lastStep !== null && step <= lastStep ? null : step;
}
