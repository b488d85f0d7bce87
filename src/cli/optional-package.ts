/**
 * Optional peers the CLI loads on demand: the terminal UI (`@mariozechner/pi-tui`), the MCP SDK,
 * the SQLite driver. An engine-only install leaves them out; a command that needs one says which
 * package to install, in one line, instead of a stack trace.
 */
import { peerRange } from './package-version.js';
import { oneLineMessage } from './stderr-text.js';

/** A package a command needs is not installed (or cannot be loaded): exit code 6. */
export class MissingPackage extends Error {
  override readonly name = 'MissingPackage';
}

/**
 * Runs `load` (a dynamic import) and turns "not installed" into a `MissingPackage` naming the
 * package, what needs it and the install command with the range ask-engine declares.
 *
 * @example
 * const { createTerminalProvider } = await importOptionalPackage(
 *   '@mariozechner/pi-tui', 'the terminal UI', () => import('../terminal/terminal-provider.js'));
 */
export async function importOptionalPackage<T>(
  packageName: string,
  purpose: string,
  load: () => Promise<T>,
): Promise<T> {
  try {
    return await load();
  } catch (error) {
    if (!isNotInstalled(error, packageName)) {
      throw new MissingPackage(
        `${purpose} needs the ${packageName} package, which cannot be loaded: ${oneLineMessage(error)}`,
      );
    }
    const range = peerRange(packageName);
    const spec = range === undefined ? packageName : `${packageName}@${quoteRange(range)}`;
    throw new MissingPackage(
      `${purpose} needs the ${packageName} package, which is not installed; install it next to ask-engine (npm install ${spec}).`,
    );
  }
}

/** Node's "cannot find" for this package itself, not for some module it imports. */
function isNotInstalled(error: unknown, packageName: string): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return (
    (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') &&
    typeof message === 'string' &&
    (message.includes(`'${packageName}'`) || message.includes(`'${packageName}/`))
  );
}

/** A range with spaces or shell characters (`^1 || ^2`) is quoted for the shell. */
function quoteRange(range: string): string {
  return /^[\w.^~*-]+$/.test(range) ? range : `'${range}'`;
}
