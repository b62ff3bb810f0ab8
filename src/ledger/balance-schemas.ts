import { Type } from '@sinclair/typebox';
import { SuccessEnvelope } from '../http/envelope.ts';

export const BalanceQuery = Type.Object({
  currency: Type.Optional(Type.Unsafe<'MWK' | 'USD' | 'GBP'>({ type: 'string', enum: ['MWK', 'USD', 'GBP'] })),
});

export const BalanceResponse = SuccessEnvelope(
  Type.Object({
    environment: Type.String(),
    currency: Type.String(),
    main_balance: Type.String(),
    collection_balance: Type.Number(),
  }),
);
