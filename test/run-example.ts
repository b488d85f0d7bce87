/** Runs a file of examples/ as a user would (its `ask-engine` imports mapped to src/) and returns what it printed. */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
export const projectRoot = fileURLToPath(new URL('..', import.meta.url));

export async function runExample(name: string): Promise<string> {
  const { stdout } = await run(
    process.execPath,
    ['--conditions=ask-engine:source', '--import', 'tsx', `examples/${name}`],
    { cwd: projectRoot },
  );
  return stdout;
}
