/**
 * `npm run lint:openapi` (part of `npm run lint`): lints the OpenAPI document a running gateway
 * serves with Redocly CLI and the repository's redocly.yaml (Redocly's recommended rules, every
 * one an error). The document is fetched from a gateway on a temporary SQLite database, as a
 * client would fetch it, and written to a temporary file for the linter. Nothing leaves the
 * machine: Redocly's telemetry and update check are off.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { startTestGateway } from '../test/helpers/gateway.ts';
import { temporaryFolder } from '../test/helpers/temp-folders.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const REDOCLY = path.join(ROOT, 'node_modules', '.bin', 'redocly');

const gw = await startTestGateway('sqlite');
const folder = temporaryFolder('lipira-openapi-');
let status: number | null = 1;
try {
  const document = await (await fetch(`${gw.url}/openapi.json`)).text();
  const file = path.join(folder.dir, 'openapi.json');
  fs.writeFileSync(file, document);
  const lint = spawnSync(REDOCLY, ['lint', file, '--config', path.join(ROOT, 'redocly.yaml'), '--format', 'stylish'], {
    stdio: 'inherit',
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_NOTIFICATIONS: 'true' },
  });
  if (lint.error) throw lint.error;
  status = lint.status;
} finally {
  folder.remove();
  await gw.close();
}
process.exitCode = status ?? 1;
