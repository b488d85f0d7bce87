/**
 * Runs a file of examples/ as a user would (its `ask-engine` imports mapped to src/) and returns
 * what it printed. It runs bundled into JavaScript (test/support/program-bundle.ts), as fast to
 * start as a built program.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { bundleProgram } from './support/program-bundle.js';

const run = promisify(execFile);
export const projectRoot = fileURLToPath(new URL('..', import.meta.url));

export async function runExample(name: string): Promise<string> {
  const { stdout } = await run(process.execPath, [await bundleProgram(`examples/${name}`)], {
    cwd: projectRoot,
  });
  return stdout;
}
