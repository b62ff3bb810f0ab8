import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { settingsReference } from '../../src/settings/reference.ts';
import { SETTINGS } from '../../src/settings/settings.ts';

test('docs/operate/configuration.md is what the settings table makes (npm run docs:settings writes it)', () => {
  const written = fs.readFileSync(path.join(import.meta.dirname, '../../docs/operate/configuration.md'), 'utf8');
  assert.equal(written, settingsReference(), 'docs/operate/configuration.md is stale: run npm run docs:settings');
});

test('each variable is in the settings table once', () => {
  const variables = SETTINGS.map((setting) => setting.variable);
  assert.deepEqual(
    variables.filter((variable, index) => variables.indexOf(variable) !== index),
    [],
  );
});
