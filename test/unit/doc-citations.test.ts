import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** Where citations of the project's documents live: the code, the tests and the documents themselves. */
function citingFiles(): string[] {
  const files: string[] = [];
  for (const folder of ['src', 'test', 'docs']) {
    for (const name of fs.readdirSync(path.join(ROOT, folder), { recursive: true }) as string[]) {
      if (/\.(ts|js|md)$/.test(name)) files.push(path.join(folder, name));
    }
  }
  for (const name of fs.readdirSync(ROOT)) if (name.endsWith('.md')) files.push(name);
  return files;
}

/**
 * The anchors GitHub gives a document's headings: the text without its markup, lower case, with
 * everything but letters, digits, `_`, `-` and spaces dropped and spaces made hyphens; a repeated
 * one gets `-1`, `-2`, … Headings inside fenced code blocks are not headings.
 */
function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const heading = fenced ? null : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const text = heading[1]!.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1');
    const slug = text
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}_\- ]/gu, '')
      .replace(/ /g, '-');
    const times = seen.get(slug) ?? 0;
    seen.set(slug, times + 1);
    anchors.add(times === 0 ? slug : `${slug}-${times}`);
  }
  return anchors;
}

const anchorsOf = new Map<string, Set<string> | null>();
/** A document's anchors, or null when the repository has no such file. */
function documentAnchors(document: string): Set<string> | null {
  if (!anchorsOf.has(document)) {
    const file = path.join(ROOT, document);
    anchorsOf.set(document, fs.existsSync(file) ? headingAnchors(fs.readFileSync(file, 'utf8')) : null);
  }
  return anchorsOf.get(document)!;
}

/** `docs/<path>.md`, and `#<anchor>` when it names a heading. */
const CITATION = /\bdocs\/[\w/.-]+?\.md(?:#[\p{L}\p{N}_-]+)?/gu;
/** A section sign after the name of a document the repository does not carry, even across a comment's line break. */
const OUTSIDE_SECTION = /\b(?:contract|spec|reference)[\s*/]*§/i;

test('every docs/…md citation names a file of the repository and, with #anchor, one of its headings', () => {
  const broken: string[] = [];
  for (const file of citingFiles()) {
    const lines = fs.readFileSync(path.join(ROOT, file), 'utf8').split('\n');
    lines.forEach((line, index) => {
      for (const [citation] of line.matchAll(CITATION)) {
        const [document, anchor] = citation.split('#') as [string, string | undefined];
        const anchors = documentAnchors(document);
        if (anchors === null) broken.push(`${file}:${index + 1}: ${document} does not exist`);
        else if (anchor !== undefined && !anchors.has(anchor))
          broken.push(`${file}:${index + 1}: ${document} has no heading #${anchor}`);
      }
    });
  }
  assert.deepEqual(broken, []);
});

/** A Markdown link's target: `(path)`, `(path#anchor)` or `(#anchor)`, outside code spans and fences. */
const LINK = /\]\(([^)\s]+)\)/g;

test('every relative link of a Markdown document reaches a file and, with #anchor, one of its headings', () => {
  const broken: string[] = [];
  for (const file of citingFiles().filter((name) => name.endsWith('.md'))) {
    let fenced = false;
    fs.readFileSync(path.join(ROOT, file), 'utf8')
      .split('\n')
      .forEach((line, index) => {
        if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
        if (fenced) return;
        for (const [, target] of line.replace(/`[^`]*`/g, '').matchAll(LINK)) {
          if (/^[a-z]+:/.test(target!)) continue;
          const [linked, anchor] = target!.split('#') as [string, string | undefined];
          const document =
            linked === '' ? file : path.posix.normalize(path.posix.join(path.posix.dirname(file), linked));
          const where = `${file}:${index + 1}: ${target}`;
          if (!fs.existsSync(path.join(ROOT, document))) broken.push(`${where}: ${document} does not exist`);
          else if (anchor !== undefined && document.endsWith('.md') && !documentAnchors(document)!.has(anchor))
            broken.push(`${where}: ${document} has no heading #${anchor}`);
        }
      });
  }
  assert.deepEqual(broken, []);
});

test('src/ and test/ cite no section of a document outside the repository (contract, spec, reference)', () => {
  const found = citingFiles()
    .filter((file) => /^(src|test)\//.test(file))
    .filter((file) => OUTSIDE_SECTION.test(fs.readFileSync(path.join(ROOT, file), 'utf8')));
  assert.deepEqual(found, []);
});

test('anchors are made as GitHub makes them', () => {
  const anchors = headingAnchors(
    [
      '# Lipira API reference',
      '### 3-D Secure',
      '## Amounts, currencies and fees',
      '```',
      '# not a heading',
      '```',
      '## Webhooks',
      '## Webhooks',
      '## The `tx_ref` [rules](https://example.com)',
    ].join('\n'),
  );
  assert.deepEqual(
    [...anchors],
    ['lipira-api-reference', '3-d-secure', 'amounts-currencies-and-fees', 'webhooks', 'webhooks-1', 'the-tx_ref-rules'],
  );
});
