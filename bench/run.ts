/** Runs every `bench/*.bench.ts` in its own process, one after another (`npm run bench`). */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const only = process.argv.slice(2);
const files = readdirSync(here)
  .filter((file) => file.endsWith('.bench.ts'))
  .filter((file) => only.length === 0 || only.some((name) => file.includes(name)))
  .sort();

let failed = 0;
for (const file of files) {
  console.log(`\n# ${file}`);
  const run = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', join(here, file)], {
    stdio: 'inherit',
  });
  if (run.status !== 0) failed++;
}
process.exitCode = failed === 0 ? 0 : 1;
