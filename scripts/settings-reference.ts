/**
 * `npm run docs:settings`: writes docs/operate/configuration.md, what `lipira config --markdown`
 * prints from the settings table (src/settings/settings.ts); tests fail while the two differ.
 */
import fs from 'node:fs';
import path from 'node:path';
import { settingsReference } from '../src/settings/reference.ts';

const file = path.resolve(import.meta.dirname, '../docs/operate/configuration.md');
fs.writeFileSync(file, settingsReference());
process.stdout.write(`wrote ${path.relative(process.cwd(), file)}\n`);
