/**
 * `npm run docs:settings`: writes docs/settings.md from the settings table
 * (src/settings/settings.ts); a unit test fails while the two differ.
 */
import fs from 'node:fs';
import path from 'node:path';
import { settingsReference } from '../src/settings/reference.ts';

const file = path.resolve(import.meta.dirname, '../docs/settings.md');
fs.writeFileSync(file, settingsReference());
process.stdout.write(`wrote ${path.relative(process.cwd(), file)}\n`);
