let counter = 0;

/** A reference no other test has used. */
export function uniqueRef(prefix = 'tx'): string {
  counter += 1;
  return `${prefix}-${process.pid}-${Date.now()}-${counter}`;
}

/** A valid current-generation create body; override any field. */
export function currentBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    tx_ref: uniqueRef(),
    amount: 1000,
    currency: 'MWK',
    first_name: 'Jane',
    last_name: 'Banda',
    email: 'jane@example.com',
    callback_url: 'https://shop.example.com/paid?order=7',
    return_url: 'https://shop.example.com/cancelled',
    customization: { title: 'Order 7', description: 'Two bags of maize' },
    meta: { order_id: 7 },
    ...overrides,
  };
}

/** A valid legacy-generation create body; override any field. */
export function legacyBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    tx_ref: uniqueRef('legacy'),
    amount: '10000',
    currency: 'GBP',
    first_name: 'John',
    last_name: 'Phiri',
    email: 'john@example.com',
    customization: { title: 'Invoice 12', description: 'Consulting', logo: 'https://shop.example.com/logo.png' },
    meta: { invoice: 12 },
    ...overrides,
  };
}

export function without(body: Record<string, unknown>, field: string): Record<string, unknown> {
  const copy = { ...body };
  delete copy[field];
  return copy;
}

export const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
