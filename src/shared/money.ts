/**
 * Money is kept in minor units (1/100 of the currency) as integers. Amounts on the wire are
 * whole major units; fees are a percentage in basis points, rounded half-up to the minor unit.
 */
export function toMinor(major: number): number {
  return major * 100;
}

export function toMajor(minor: number): number {
  return minor / 100;
}

export function feeMinor(amountMinor: number, feeBasisPoints: number): number {
  return Math.floor((amountMinor * feeBasisPoints + 5_000) / 10_000);
}

const grouped = new Intl.NumberFormat('en-US', {
  minimumFractionDigits: 2,
  maximumFractionDigits: 2,
  useGrouping: true,
});

/** Legacy text form: `"10,000.00"`. */
export function formatMoneyText(minor: number): string {
  return grouped.format(minor / 100);
}

/** An amount as a page or message shows it, with its currency: `MWK 1,250.00`. */
export function moneyText(currency: string, minor: number): string {
  return `${currency} ${formatMoneyText(minor)}`;
}
