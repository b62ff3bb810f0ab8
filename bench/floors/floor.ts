import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import type { Config } from '../../src/config.ts';
import type { DB } from '../../src/db/schema.ts';
import type { Principal } from '../../src/merchants/merchant-service.ts';

/** What every floor route is given: bare Fastify, the gateway's database, whose key it stands for, and the gateway's settings. */
export interface Floor {
  app: FastifyInstance;
  db: Kysely<DB>;
  owner: Principal;
  config: Config;
}
