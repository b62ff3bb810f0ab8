#!/usr/bin/env node
// The `lipira` command. It runs the TypeScript sources with no build step to remember: on start it
// bundles src/ with esbuild into one ES module, cached until a source file changes, and imports
// that. Running the sources through tsx instead costs ~50 MB more memory per process (a loader
// thread and a transpiled copy of every module): see docs/performance-history.md.
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SOURCES = path.join(ROOT, 'src');
// Files the hosted checkout page and the dashboard read at start, beside their modules
// (`import.meta.url`): the bundle's module is the bundle, so they go beside it.
const PAGE_ASSETS = [path.join(SOURCES, 'checkout', 'page'), path.join(SOURCES, 'dashboard')];
// Modules started as worker threads, which start from a file: each an entry of the bundle of its
// own, found by its module beside it (`import.meta.url`), as the page assets are.
const WORKER_ENTRIES = {
  'password-strength-worker': path.join(SOURCES, 'users', 'password-strength-worker.ts'),
  'backup-thread': path.join(SOURCES, 'operations', 'backup-thread.ts'),
  'checkpoint-thread': path.join(SOURCES, 'db', 'checkpoint-thread.ts'),
};

/** Every source file with its size and modification time: the bundle is rebuilt when any changes. */
function sourceFingerprint() {
  const hash = createHash('sha256');
  for (const entry of readdirSync(SOURCES, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath ?? entry.path, entry.name);
    const { size, mtimeMs } = statSync(file);
    hash.update(`${file}\0${size}\0${mtimeMs}\n`);
  }
  return hash.digest('hex').slice(0, 16);
}

function cacheDirectory() {
  for (const dir of [
    path.join(ROOT, 'node_modules', '.cache', 'lipira'),
    path.join(os.tmpdir(), `lipira-bundle-${process.getuid?.() ?? 'user'}`),
  ]) {
    try {
      mkdirSync(dir, { recursive: true });
      return dir;
    } catch {
      // read-only install: try the next place
    }
  }
  throw new Error('lipira: no writable directory for the bundled sources');
}

/** Bundles of sources since edited, left by earlier starts; an hour's grace for processes still starting from them. */
function pruneOldBundles(cache, current) {
  for (const name of readdirSync(cache)) {
    const dir = path.join(cache, name);
    if (name !== current && Date.now() - statSync(dir).mtimeMs > 3_600_000)
      rmSync(dir, { recursive: true, force: true });
  }
}

async function bundledMain() {
  const cache = cacheDirectory();
  const fingerprint = sourceFingerprint();
  const dir = path.join(cache, fingerprint);
  const bundle = path.join(dir, 'main.mjs');
  if (existsSync(bundle)) return bundle;
  // Built aside and renamed into place, so processes starting together never read half a bundle.
  const staging = `${dir}.${process.pid}.tmp`;
  // Loaded only to rebuild: most starts find the bundle in place.
  const { build } = await import('esbuild');
  await build({
    entryPoints: { main: path.join(SOURCES, 'cli', 'main.ts'), ...WORKER_ENTRIES },
    outdir: staging,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    // Each command's modules in their own chunk: `lipira --help` need not load the server.
    splitting: true,
    packages: 'external',
    platform: 'node',
    format: 'esm',
    target: 'node20',
    sourcemap: 'linked',
    sourcesContent: false,
    logLevel: 'error',
  });
  for (const folder of PAGE_ASSETS) {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      if (entry.isFile() && !entry.name.endsWith('.ts'))
        copyFileSync(path.join(folder, entry.name), path.join(staging, entry.name));
    }
  }
  try {
    renameSync(staging, dir);
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    if (!existsSync(bundle)) throw error; // else another process put the same bundle in place first
  }
  pruneOldBundles(cache, fingerprint);
  return bundle;
}

// Stack traces name the TypeScript sources' lines.
process.setSourceMapsEnabled(true);
const { main } = await import(pathToFileURL(await bundledMain()).href);
process.exitCode = await main(process.argv.slice(2));
