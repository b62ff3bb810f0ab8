import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { importGraph, SRC } from '../helpers/source-imports.ts';

/** The strongly connected components with more than one module (Tarjan): each is an import cycle. */
function cycles(graph: Map<string, string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string) => {
    index.set(node, counter);
    low.set(node, counter++);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!graph.has(next)) continue;
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node)!, index.get(next)!));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    for (let member = stack.pop()!; ; member = stack.pop()!) {
      onStack.delete(member);
      component.push(path.relative(SRC, member));
      if (member === node) break;
    }
    if (component.length > 1) found.push(component.sort());
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

test('no module of src/ imports, directly or through others, a module that imports it back', () => {
  const graph = importGraph();
  assert.ok(graph.size > 50, 'the scan found the sources');
  assert.deepEqual(cycles(graph), []);
});
