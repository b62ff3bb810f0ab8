/**
 * The `application_name` a serving gateway's PostgreSQL connections carry (its pool and its work
 * listener), so that `lipira restore` can tell from pg_stat_activity that a gateway is connected.
 * Operator commands open their databases without serving limits and do not carry it.
 */
export const GATEWAY_APPLICATION_NAME = 'lipira-gateway';
