import fs from 'node:fs';
import path from 'node:path';

export const SRC = path.resolve(import.meta.dirname, '../../src');

/**
 * Every module of src/ with the modules of src/ it imports (absolute paths), type-only imports
 * included: a type import still makes one room lean on another.
 */
export function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const name of fs.readdirSync(SRC, { recursive: true }) as string[]) {
    if (!name.endsWith('.ts')) continue;
    const file = path.join(SRC, name);
    const text = fs.readFileSync(file, 'utf8');
    const imports = [...text.matchAll(/^(?:import|export)\s[^;]*?\sfrom\s+'(\.[^']+)'/gms)].map((match) =>
      path.resolve(path.dirname(file), match[1]!),
    );
    graph.set(file, imports);
  }
  return graph;
}
