import type { FastifySchemaValidationError } from 'fastify';
import { laravelFieldErrors } from '../http/validation.ts';
import type { FieldErrors } from '../shared/errors.ts';
import { OPERATOR_NAMES_WITH_ARTICLE } from '../shared/phone.ts';
import { payoutBankByUuid } from './banks.ts';

/**
 * A bank payout body's refusals, field by field. A wallet of the banks list has no bank account:
 * the clients still send its holder's name as `bank_account_name` (PayChangu's one body for both),
 * so a missing one is asked for as the wallet holder's name, not a bank account's.
 */
export function bankPayoutFieldErrors(errors: FastifySchemaValidationError[], body: unknown): FieldErrors {
  const fields = laravelFieldErrors(errors);
  const wallet = payoutBankByUuid(bankUuidOf(body))?.wallet;
  if (wallet && errors.some(isMissingHolderName)) {
    fields.bank_account_name = [
      `The bank account name field is required: for ${OPERATOR_NAMES_WITH_ARTICLE[wallet]} wallet, the name of its holder.`,
    ];
  }
  return fields;
}

const bankUuidOf = (body: unknown): string => {
  const uuid = typeof body === 'object' && body !== null ? (body as Record<string, unknown>).bank_uuid : undefined;
  return typeof uuid === 'string' ? uuid : '';
};

/** Left out (null and empty count as left out) or empty: the schema's two ways of saying the name is missing. */
function isMissingHolderName(error: FastifySchemaValidationError): boolean {
  if (error.keyword === 'required') return error.params.missingProperty === 'bank_account_name';
  return error.keyword === 'minLength' && error.instancePath === '/bank_account_name';
}
