#!/usr/bin/env node
// Runs a test command and fails if it left anything new or changed in the checkout's ./data, the
// folder `npm start` keeps its database and outbox in: tests must work in temporary folders
// (test/helpers give every gateway, `lipira serve` and `lipira …` one). Checked around the whole
// run rather than by a test of the suite, which could not see what tests running beside it or
// after it write.
//   node scripts/check-data-untouched.js <command> [args…]
import { spawn } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const DATA = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'data');

/** Every entry under ./data with what would show a change: a file's size and modification time. */
function snapshot() {
  const entries = new Map();
  let names;
  try {
    names = readdirSync(DATA, { recursive: true, withFileTypes: true });
  } catch (error) {
    if (error.code === 'ENOENT') return entries;
    throw error;
  }
  entries.set('', 'folder');
  for (const entry of names) {
    const file = path.join(entry.parentPath ?? entry.path, entry.name);
    const stat = statSync(file, { throwIfNoEntry: false });
    if (stat) entries.set(path.relative(DATA, file), stat.isDirectory() ? 'folder' : `${stat.size}:${stat.mtimeMs}`);
  }
  return entries;
}

function differences(before, after) {
  const found = [];
  for (const [name, state] of after) {
    if (!before.has(name)) found.push(`new      data/${name}`);
    else if (before.get(name) !== state) found.push(`changed  data/${name}`);
  }
  for (const name of before.keys()) if (!after.has(name)) found.push(`removed  data/${name}`);
  return found;
}

const [command, ...args] = process.argv.slice(2);
if (!command) {
  process.stderr.write('usage: node scripts/check-data-untouched.js <command> [args…]\n');
  process.exit(2);
}
const before = snapshot();
const child = spawn(command, args, { stdio: 'inherit' });
// Ctrl-C reaches the whole process group; this process waits for the command's own exit.
process.on('SIGINT', () => {});
process.on('SIGTERM', () => child.kill('SIGTERM'));
child.on('error', (error) => {
  process.stderr.write(`${command}: ${error.message}\n`);
  process.exit(1);
});
child.on('close', (code, signal) => {
  const found = differences(before, snapshot());
  if (found.length > 0) {
    const shown = found.slice(0, 20).join('\n  ');
    const more = found.length > 20 ? `\n  … and ${found.length - 20} more` : '';
    process.stderr.write(
      `\nThe tests wrote into ./data, which belongs to \`npm start\`:\n  ${shown}${more}\n` +
        'Give whatever wrote there a temporary folder (test/helpers do so for gateways, `lipira serve` and `lipira …`).\n' +
        'A gateway started from this checkout while the tests ran writes there too: stop it and run them again.\n',
    );
    process.exit(1);
  }
  process.exit(code ?? (signal ? 1 : 0));
});
