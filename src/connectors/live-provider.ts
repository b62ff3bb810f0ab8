import type { PaymentProvider } from './provider.ts';

const NOT_CONNECTED = 'Live payments are not available yet: no mobile money operator, bank or card acquirer is connected to this gateway. No money was moved.';

/**
 * Live keys until an operator connector exists: every attempt is refused before anything is
 * recorded, so the customer can come back to a session that is still payable.
 */
export function liveProvider(): PaymentProvider {
  return {
    startMobileMoney: async () => ({ accepted: false, message: NOT_CONNECTED }),
    startCard: async () => ({ accepted: false, message: NOT_CONNECTED }),
    check: async () => null,
    confirmOtp: async () => ({ status: 'failed', reason: NOT_CONNECTED }),
    payout: async () => ({ status: 'refused', message: NOT_CONNECTED }),
    startBankPayout: async () => ({ accepted: false, message: NOT_CONNECTED }),
    startBankTransfer: async () => ({ accepted: false, message: NOT_CONNECTED }),
    refund: async () => ({ accepted: false, message: NOT_CONNECTED }),
    syncRefund: async () => null,
  };
}
