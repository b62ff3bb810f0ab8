import type { Mode } from '../../shared/ids.ts';

/** What the page templates are given: the session as shown, the form context, the sandbox's instruments. */
export interface SessionSummary {
  mode: Mode;
  merchantName: string;
  /** Where customers write to the merchant about their order. */
  merchantEmail: string;
  /** Mobile money is offered for MWK only (Airtel Money and TNM Mpamba take no other currency). */
  currency: string;
  title: string | null;
  description: string | null;
  /** As the session gave it, else the merchant's from the dashboard settings; only shown when it is an http(s) URL. */
  logoUrl: string | null;
  /** The merchant's `#rrggbb` from the dashboard settings: an accent bar only, never text or its background. */
  brandColor?: string | null;
  /** e.g. `MWK 1,000.00`. */
  amountText: string;
  customerName: string;
  reference: string;
  txRef: string;
}

export interface PageContext {
  sessionId: string;
  csrfToken: string;
}

export interface TestInstruments {
  numbers: ReadonlyArray<{ number: string; operator: string; outcome: string }>;
  cards: ReadonlyArray<{ number: string; brand: string; outcome: string }>;
  otp: string;
  /** What a test bank transfer does, by the last two digits of its kwacha. */
  transfers: ReadonlyArray<{ ending: string; example: string; outcome: string }>;
}
