/**
 * The CLI as the tests start it: `src/cli/main.ts` bundled into one JavaScript file
 * (test/support/program-bundle.ts), which node starts in a fraction of the time a TypeScript
 * loader takes. Every command works from it as from the sources: native SQLite and the web
 * pages' scripts included. The installed-package tests run the real built package.
 */
import { bundleProgram } from '../support/program-bundle.js';

/** `[node, bundle]`: the command that runs the CLI from the current sources. */
export async function cliProgram(): Promise<[string, string]> {
  return [process.execPath, await bundleProgram('src/cli/main.ts')];
}
