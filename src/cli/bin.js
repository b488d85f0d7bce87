#!/usr/bin/env node
// The package `bin`: runs the TypeScript CLI through tsx's loader, as the package ships sources.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('./main.ts');
const code = await main(process.argv.slice(2));
process.stdout.write('', () => process.exit(code));
