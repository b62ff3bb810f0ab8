#!/usr/bin/env node
// The package runs its TypeScript sources directly through tsx: one code path for
// development, tests and production, and no build step between a checkout and `npm start`.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
