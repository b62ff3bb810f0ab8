import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { REFERENCE_PATTERN } from '../core/charge-schemas.ts';
import type { Principal } from '../merchants/merchant-service.ts';
import { ApiError } from '../shared/errors.ts';
import * as repo from '../events/delivery-repository.ts';

export const DEFAULT_PER_PAGE = 20;

export interface DeliveryPage {
  page: number;
  perPage: number;
  total: number;
  rows: repo.Delivery[];
}

/**
 * Ids and references are URL-safe text we issued or accepted: anything else names nothing, and is
 * not asked of the database (where a NUL in it would even fail the query on PostgreSQL).
 */
const couldExist = (text: string) => REFERENCE_PATTERN.test(text);

/** A merchant's deliveries in the key's mode, latest first. */
export async function listDeliveries(
  db: Kysely<DB>,
  owner: Principal,
  filter: repo.DeliveryFilter,
  page: number,
  perPage: number,
): Promise<DeliveryPage> {
  if ([filter.txRef, filter.chargeId].some((ref) => ref && !couldExist(ref)))
    return { page, perPage, total: 0, rows: [] };
  const { rows, total } = await repo.listDeliveries(db, owner, filter, page, perPage);
  return { page, perPage, total, rows };
}

export async function showDelivery(db: Kysely<DB>, owner: Principal, id: string) {
  const delivery = couldExist(id) ? await repo.findDelivery(db, owner, id) : undefined;
  if (!delivery) throw new ApiError('deliveryNotFound');
  return { delivery, attempts: await repo.listAttempts(db, delivery.id) };
}

/** Sends a delivery again as soon as a worker is free, whatever became of it before. */
export async function redeliver(db: Kysely<DB>, owner: Principal, id: string, now: number): Promise<repo.Delivery> {
  const delivery = couldExist(id) ? await repo.findDelivery(db, owner, id) : undefined;
  if (!delivery) throw new ApiError('deliveryNotFound');
  await repo.requeueDelivery(db, delivery.id, now);
  return { ...delivery, status: 'pending', next_attempt_at: now, locked_until: null, updated_at: now };
}
