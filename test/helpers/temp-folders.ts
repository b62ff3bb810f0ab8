import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface TemporaryFolder {
  dir: string;
  remove(): void;
}

/**
 * A new empty folder under the system's temporary directory. Tests keep everything they write
 * in such folders: the checkout's ./data belongs to `npm start`, and `npm test` fails if a run
 * leaves anything there (scripts/check-data-untouched.js).
 */
export function temporaryFolder(prefix = 'lipira-test-'): TemporaryFolder {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  return { dir, remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}
